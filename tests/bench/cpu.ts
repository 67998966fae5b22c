// CPU time an engine spent, from /proc: the process and its live children (the workers of `--workers N`),
// user + system. What a delivery costs in CPU holds on a shared box where throughput moves 2× between runs.
import { readdirSync, readFileSync } from 'node:fs';

const ticksPerSecond = 100; // USER_HZ, 100 on every Linux Sandbay benches on

function stat(pid: number): { ppid: number; seconds: number } | undefined {
  try {
    // The fields after the command name (which may hold spaces), from field 3 on: ppid is 4, utime 14, stime 15.
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
    return { ppid: Number(fields[1]), seconds: (Number(fields[11]) + Number(fields[12])) / ticksPerSecond };
  } catch {
    return undefined; // gone in the meantime
  }
}

/** CPU-seconds used so far by `pid` and its children. */
export function engineCpuSeconds(pid: number): number {
  let total = stat(pid)?.seconds ?? 0;
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    const child = stat(Number(name));
    if (child?.ppid === pid) total += child.seconds;
  }
  return total;
}
