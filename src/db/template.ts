import { createHash, randomBytes } from 'node:crypto';
import {
  cpSync,
  existsSync,
  mkdirSync,
  readdirSync,
  renameSync,
  rmSync,
  statfsSync,
  statSync,
  utimesSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { makePrivate } from '../shared/node/private-files.ts';
import { processAlive } from '../shared/node/process-alive.ts';

// initdb costs ~3 s and ~700 MB of RSS; copying an initialised, migrated and seeded data
// dir costs ~50 ms on tmpfs. So every fresh data dir and every --memory instance starts
// from a cached template, keyed by everything that shapes its contents.

const scratchPrefix = 'sandbay-mem-';

/** Where scratch data dirs and the template cache live: tmpfs when it has room. */
export function scratchBase(): string {
  try {
    const s = statfsSync('/dev/shm');
    if (s.bavail * s.bsize > 2 * 1024 ** 3) return '/dev/shm';
  } catch {
    // not Linux, or no /dev/shm
  }
  return tmpdir();
}

/** Where the cached templates live: one dir per template key, plus builds in progress. */
const templateCache = () => join(scratchBase(), 'sandbay-cache');

export function templateDir(key: string, cache = templateCache()): string {
  const hash = createHash('sha256').update(key).digest('hex').slice(0, 16);
  return join(cache, `template-${hash}`);
}

/** Builds the template once (atomically, so parallel processes never see half of one). */
export async function ensureTemplate(
  key: string,
  build: (dir: string) => Promise<void>,
  cache = templateCache(),
): Promise<string> {
  const dir = templateDir(key, cache);
  sweepTemplates(cache, dir);
  // Touched before it is read: a sweep in another process spares what was used in the last half hour.
  if (touch(dir) && existsSync(join(dir, 'PG_VERSION'))) return dir;
  const work = `${dir}.build-${process.pid}-${randomBytes(4).toString('hex')}`;
  mkdirSync(work, { recursive: true });
  try {
    await build(work);
    try {
      renameSync(work, dir);
    } catch {
      // another process finished first; its template is as good as ours
    }
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
  touch(dir);
  return dir;
}

/** A template nobody opened for this long belongs to code no longer run here (another migration set). */
export const templateKeepMs = 30 * 60_000;

/** Marks a template as in use now; false when it is not there. */
function touch(dir: string): boolean {
  try {
    const now = new Date();
    utimesSync(dir, now, now);
    return true;
  } catch {
    return false;
  }
}

/**
 * Frees the cache of what no process needs (each template is ~41 MB of tmpfs): other keys'
 * templates unused for templateKeepMs, and the leftovers of builds and sweeps whose process
 * died. A template is renamed away before it is deleted, so a process that opens it at that
 * moment finds nothing and builds its own, instead of copying half of one.
 */
export function sweepTemplates(cache: string, keep: string, now = Date.now()): string[] {
  let names: string[];
  try {
    names = readdirSync(cache);
  } catch {
    return [];
  }
  const removed: string[] = [];
  const remove = (name: string, as = name) => {
    try {
      rmSync(join(cache, name), { recursive: true, force: true });
      removed.push(as);
    } catch {
      // another sweeper got there first
    }
  };
  for (const name of names) {
    const path = join(cache, name);
    if (path === keep) continue;
    const leftover = /\.(?:build|trash)-(\d+)-\w+$/.exec(name);
    if (leftover) {
      if (!processAlive(Number(leftover[1]))) remove(name);
      continue;
    }
    if (!/^template-[0-9a-f]{16}$/.test(name)) continue;
    try {
      if (now - statSync(path).mtimeMs < templateKeepMs) continue;
      const trash = `${name}.trash-${process.pid}-${randomBytes(4).toString('hex')}`;
      renameSync(path, join(cache, trash));
      remove(trash, name);
    } catch {
      // gone already, or renamed by another sweeper
    }
  }
  return removed;
}

/** A new data dir from the template: owner-only, whatever modes the copy carried over (SPEC §7). */
export function copyTemplate(template: string, target: string): void {
  mkdirSync(target, { recursive: true, mode: 0o700 });
  cpSync(template, target, { recursive: true });
  makePrivate(target);
}

/** A scratch dir for a --memory instance; the pid in its name lets later runs sweep it up. */
export function makeScratchDir(): string {
  sweepScratchDirs();
  return join(scratchBase(), `${scratchPrefix}${process.pid}-${randomBytes(6).toString('hex')}`);
}

function sweepScratchDirs(): void {
  const base = scratchBase();
  for (const name of readdirSync(base)) {
    if (!name.startsWith(scratchPrefix)) continue;
    const pid = Number(name.slice(scratchPrefix.length).split('-')[0]);
    if (!processAlive(pid)) rmSync(join(base, name), { recursive: true, force: true });
  }
}
