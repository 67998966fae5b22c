import { createHash, randomBytes } from 'node:crypto';
import { cpSync, existsSync, mkdirSync, readdirSync, renameSync, rmSync, statfsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
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

export function templateDir(key: string): string {
  const hash = createHash('sha256').update(key).digest('hex').slice(0, 16);
  return join(scratchBase(), 'sandbay-cache', `template-${hash}`);
}

/** Builds the template once (atomically, so parallel processes never see half of one). */
export async function ensureTemplate(key: string, build: (dir: string) => Promise<void>): Promise<string> {
  const dir = templateDir(key);
  if (existsSync(join(dir, 'PG_VERSION'))) return dir;
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
  return dir;
}

export function copyTemplate(template: string, target: string): void {
  mkdirSync(target, { recursive: true });
  cpSync(template, target, { recursive: true });
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
