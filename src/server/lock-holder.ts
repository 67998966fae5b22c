import { readFileSync, realpathSync } from 'node:fs';
import { join } from 'node:path';
import { processStatus } from '../shared/node/process-alive.ts';

/** What a data dir's lock file records about the engine run holding it. */
export interface LockRecord {
  pid: number;
  /** The engine run's id, repeated by the discovery file and GET /api/v1/health (absent in an older Sandbay's lock). */
  instanceId?: string;
  /** The holder's start time (processStatus): a pid and its start time name one process, even after a reboot. */
  startTime?: string;
  /** The data dir as the holder resolved it: a copied data dir carries a lock naming the original. */
  dataDir?: string;
  since?: string;
}

/** Engine runs of this process holding a lock now (two engines in one process share a pid). */
export const heldInThisProcess = new Set<string>();

/** Reads a lock (or takeover guard) file; undefined when it is gone. An older Sandbay wrote only its pid. */
export function readLock(file: string): LockRecord | undefined {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    return undefined;
  }
  try {
    const record = JSON.parse(text) as LockRecord;
    if (Number.isSafeInteger(record?.pid)) return record;
  } catch {
    // not JSON: the plain pid an older Sandbay wrote
  }
  return { pid: Number(text.trim()) || 0 };
}

/** What an engine's health route answered: its instance id, or that nothing answered in time or at all. */
export type ProbeAnswer = { ok?: unknown; instanceId?: unknown } | 'refused' | 'no-answer';

/** Asks the engine at `url` which instance it is (GET /api/v1/health), giving up after a second. */
async function askInstance(url: string, timeoutMs = 1000): Promise<ProbeAnswer> {
  try {
    const res = await fetch(new URL('/api/v1/health', url), { signal: AbortSignal.timeout(timeoutMs) });
    const body: unknown = await res.json().catch(() => undefined);
    return res.ok && body && typeof body === 'object' ? body : {};
  } catch (err) {
    return (err as Error)?.name === 'TimeoutError' ? 'no-answer' : 'refused';
  }
}

export interface Verdict {
  held: boolean;
  /** The holder's URL, from the discovery file, when the file is the holder's. */
  url?: string;
}

/** Start times from the same source (both /proc, both ps) can be compared; otherwise we do not know. */
const comparable = (a?: string, b?: string): a is string => !!a && !!b && a.split(':')[0] === b.split(':')[0];

/** A data dir copied with its lock: the holder named in it holds the original dir, not this one. */
function lockedElsewhere(record: LockRecord, dataDir: string): boolean {
  if (!record.dataDir || !record.instanceId || record.dataDir === realpathSync(dataDir)) return false;
  return readLock(join(record.dataDir, 'sandbay.lock'))?.instanceId === record.instanceId;
}

/**
 * Whether the lock's holder is really a running Sandbay on this data dir. A pid that is gone
 * or a zombie is not; nor is one whose start time differs from the recorded one (the pid was
 * recycled after a crash or reboot). Where start times cannot be compared, the instance the
 * discovery file names is asked who it is; one that answers late is taken as alive and busy.
 */
export async function judgeHolder(
  record: LockRecord,
  dataDir: string,
  discovery: { url: string; pid: number; instanceId?: string } | undefined,
  probe: (url: string) => Promise<ProbeAnswer> = askInstance,
): Promise<Verdict> {
  const ownsDiscovery =
    discovery && discovery.pid === record.pid && (!record.instanceId || discovery.instanceId === record.instanceId);
  const held: Verdict = { held: true, url: ownsDiscovery ? discovery.url : undefined };
  const free: Verdict = { held: false };
  if (record.pid === process.pid) return record.instanceId && heldInThisProcess.has(record.instanceId) ? held : free;
  const status = processStatus(record.pid);
  if (!status.running) return free;
  if (comparable(record.startTime, status.startTime)) {
    return record.startTime === status.startTime && !lockedElsewhere(record, dataDir) ? held : free;
  }
  // In doubt. A current Sandbay writes the discovery file once it listens: without it, it is
  // starting or stopping. An older Sandbay's pid-only lock is trusted only when its URL answers.
  if (!held.url) return record.instanceId ? held : free;
  const answer = await probe(held.url);
  if (answer === 'no-answer') return held;
  if (answer === 'refused') return free;
  return (record.instanceId ? answer.instanceId === record.instanceId : answer.ok === true) ? held : free;
}
