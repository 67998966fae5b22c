import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';

/** What the OS says about a process. */
export interface ProcessStatus {
  /** False when there is no such process, or only a zombie its parent has not reaped yet. */
  running: boolean;
  /**
   * When it started, as an opaque token compared only for equality: with the pid it names one
   * process, so a pid recycled after a crash or a reboot does not pass for the old holder.
   * Prefixed by where it came from; absent where the platform does not say (Windows).
   */
  startTime?: string;
}

const gone: ProcessStatus = { running: false };

/** Linux: /proc/<pid>/stat; its state is field 3 and its start time (ticks since boot) field 22. */
function fromProc(pid: number): ProcessStatus | undefined {
  let stat: string;
  try {
    stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    // ENOENT with /proc mounted means no such process; anything else means /proc cannot say.
    return code === 'ENOENT' && procMounted() ? gone : undefined;
  }
  // The command name (field 2) is in parentheses and may itself hold spaces and parentheses.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const state = fields[0];
  if (state === 'Z' || state === 'X') return gone;
  return { running: true, startTime: `proc:${bootId() ?? ''}:${fields[19]}` };
}

/** macOS and the BSDs: ps, in the C locale so the start time reads the same every time. */
function fromPs(pid: number): ProcessStatus | undefined {
  const result = spawnSync('ps', ['-o', 'stat=', '-o', 'lstart=', '-p', String(pid)], {
    encoding: 'utf8',
    env: { ...process.env, LC_ALL: 'C' },
    timeout: 2000,
  });
  if (result.error) return undefined;
  const line = result.stdout.trim();
  if (result.status !== 0 || !line) return gone;
  const [state, ...start] = line.split(/\s+/);
  if (state.startsWith('Z')) return gone;
  return { running: true, startTime: `ps:${start.join(' ')}` };
}

/** Everywhere: signal 0 tests existence only (a zombie passes; EPERM means it exists but is not ours). */
function fromSignal(pid: number): ProcessStatus {
  try {
    process.kill(pid, 0);
    return { running: true };
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM' ? { running: true } : gone;
  }
}

let procChecked: boolean | undefined;
function procMounted(): boolean {
  try {
    procChecked ??= readFileSync('/proc/self/stat', 'utf8').length > 0;
  } catch {
    procChecked = false;
  }
  return procChecked;
}

let boot: string | null | undefined;
/** The kernel's id of this boot: ticks since boot repeat from one boot to the next. */
function bootId(): string | undefined {
  if (boot === undefined) {
    try {
      boot = readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim();
    } catch {
      boot = null;
    }
  }
  return boot ?? undefined;
}

export type StatusSource = 'proc' | 'ps' | 'signal';

/** Whether `pid` runs (a zombie does not), and since when where the platform tells. */
export function processStatus(pid: number, sources: readonly StatusSource[] = defaultSources()): ProcessStatus {
  if (!Number.isSafeInteger(pid) || pid <= 0) return gone;
  for (const source of sources) {
    const status = source === 'proc' ? fromProc(pid) : source === 'ps' ? fromPs(pid) : fromSignal(pid);
    if (status) return status;
  }
  return fromSignal(pid);
}

function defaultSources(): StatusSource[] {
  if (process.platform === 'linux') return ['proc', 'ps', 'signal'];
  return process.platform === 'win32' ? ['signal'] : ['ps', 'signal'];
}

/**
 * Whether a process with this pid runs: the scratch-dir sweep and the data-dir lock ask. A zombie
 * (killed, not yet reaped by its parent) does not run, though signal 0 still finds its pid.
 */
export const processAlive = (pid: number): boolean => processStatus(pid).running;
