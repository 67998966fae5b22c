import { randomBytes } from 'node:crypto';
import { constants, copyFileSync, linkSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { processStatus } from '../shared/node/process-alive.ts';
import { heldInThisProcess, judgeHolder, readLock, type LockRecord } from './lock-holder.ts';

export { readLock, type LockRecord } from './lock-holder.ts';

export const lockFile = (dataDir: string) => join(dataDir, 'sandbay.lock');
export const discoveryFile = (dataDir: string) => join(dataDir, 'server.json');

/** What the discovery file holds, so the CLI finds the running app without --url. */
export interface Discovery {
  /** This engine's own address: the CLI on this machine and the lock's liveness probe reach it directly. */
  url: string;
  /** What users see (--public-url), when it differs: behind a load balancer `url` may reach another engine. */
  publicUrl?: string;
  pid: number;
  /** The engine's id for this run; its lock and GET /api/v1/health say the same. */
  instanceId?: string;
  /**
   * The admin key, so the CLI on this machine can act on any sandbox (file mode 0600); absent when the engine
   * does not know it (admin-key.ts, sharedDatabaseAdminKey).
   */
  adminKey?: string;
}

export class DataDirLockedError extends Error {
  constructor(readonly holder: { pid: number; url?: string }) {
    super(
      `Another Sandbay (pid ${holder.pid}) is already using this data dir${holder.url ? ` at ${holder.url}` : ' (it is starting or stopping)'}. ` +
        'Open that one, stop it, or pass --data-dir / --memory.',
    );
  }
}

/** Creates `target` with the draft's full contents, or fails when it exists: link() never shows a half-written file. */
function linkIfAbsent(draft: string, target: string): boolean {
  try {
    linkSync(draft, target);
    return true;
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'EEXIST') return false;
    if (code !== 'EPERM' && code !== 'ENOTSUP' && code !== 'ENOSYS') throw err;
  }
  // A file system without hard links (FAT, some network shares): an exclusive create instead.
  try {
    copyFileSync(draft, target, constants.COPYFILE_EXCL);
    return true;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw err;
  }
}

/**
 * Removes the stale lock `stale` and puts ours in its place, under a takeover guard so that
 * two processes replacing the same stale lock cannot both win (each would otherwise delete
 * the lock the other just made). The guard lives for a few file operations; one left by a
 * process that died holding it is removed and the caller tries again.
 */
function takeOver(file: string, stale: LockRecord, draft: string): boolean {
  const guard = `${file}.takeover`;
  if (!linkIfAbsent(draft, guard)) {
    const holder = readLock(guard);
    if (holder && (holder.pid === process.pid || !processStatus(holder.pid).running)) rmSync(guard, { force: true });
    return false;
  }
  try {
    const now = readLock(file);
    if (now && JSON.stringify(now) !== JSON.stringify(stale)) return false;
    rmSync(file, { force: true });
    return linkIfAbsent(draft, file);
  } finally {
    rmSync(guard, { force: true });
  }
}

/**
 * Takes the data dir's lock for this engine run. A lock whose holder is not a running Sandbay
 * on this data dir (it died, is a zombie, or its pid now belongs to another program) is taken
 * over; a live holder makes this throw DataDirLockedError naming its URL. Returns the release.
 */
export async function acquireLock(dataDir: string, instanceId: string): Promise<() => void> {
  const file = lockFile(dataDir);
  const mine: LockRecord = {
    pid: process.pid,
    instanceId,
    startTime: processStatus(process.pid).startTime,
    dataDir: realpathSync(dataDir),
    since: new Date().toISOString(),
  };
  const draft = `${file}.${process.pid}-${randomBytes(4).toString('hex')}`;
  writeFileSync(draft, JSON.stringify(mine) + '\n', { mode: 0o600 });
  try {
    for (let attempt = 0; attempt < 100; attempt++) {
      if (linkIfAbsent(draft, file) || acquiredFrom(file, draft, await staleLock(dataDir))) {
        heldInThisProcess.add(instanceId);
        return () => {
          heldInThisProcess.delete(instanceId);
          if (readLock(file)?.instanceId === instanceId) rmSync(file, { force: true });
        };
      }
      await new Promise((resolve) => setTimeout(resolve, 5 + attempt));
    }
  } finally {
    rmSync(draft, { force: true });
  }
  throw new Error(`cannot lock ${file}: it keeps changing hands`);
}

/** The current lock when its holder is gone (undefined when there is none now); throws when it is alive. */
async function staleLock(dataDir: string): Promise<LockRecord | undefined> {
  const current = readLock(lockFile(dataDir));
  if (!current) return undefined;
  const verdict = await judgeHolder(current, dataDir, readDiscovery(dataDir));
  if (verdict.held) throw new DataDirLockedError({ pid: current.pid, url: verdict.url });
  return current;
}

const acquiredFrom = (file: string, draft: string, stale: LockRecord | undefined) =>
  stale !== undefined && takeOver(file, stale, draft);

/** Writes the discovery file (mode 0600: it holds the admin key); returns its removal. */
export function writeDiscovery(dataDir: string, discovery: Discovery): () => void {
  const file = discoveryFile(dataDir);
  writeFileSync(file, JSON.stringify(discovery, null, 2) + '\n', { mode: 0o600 });
  return () => {
    // Only our own: a later engine may have written its file here since.
    if (readDiscovery(dataDir)?.instanceId === discovery.instanceId) rmSync(file, { force: true });
  };
}

/** The running engine's discovery file, or undefined when there is none (or it is unreadable). */
export function readDiscovery(dataDir: string): Discovery | undefined {
  try {
    return JSON.parse(readFileSync(discoveryFile(dataDir), 'utf8')) as Discovery;
  } catch {
    return undefined;
  }
}
