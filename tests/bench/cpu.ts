// CPU time an engine spent, from /proc: the process and its live children (the workers of `--workers N`),
// user + system. What a delivery costs in CPU holds on a shared box where throughput moves 2× between runs.
// On PostgreSQL, also what the server's backends serving the engine's database spent (a server on this machine).
import { readdirSync, readFileSync } from 'node:fs';
import pg from 'pg';

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

/**
 * CPU-seconds used so far by each backend of the PostgreSQL server connected to `databaseUrl`'s database (the
 * engine's pool; not this query's own connection, nor the server's shared processes such as the WAL writer).
 */
export async function backendCpuSeconds(databaseUrl: string): Promise<Map<number, number>> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const { rows } = await client.query<{ pid: number }>(
      'select pid from pg_stat_activity where datname = current_database() and pid <> pg_backend_pid()',
    );
    return new Map(rows.map(({ pid }) => [pid, stat(pid)?.seconds ?? 0]));
  } finally {
    await client.end();
  }
}

/** What the backends spent between two readings; one opened meanwhile counts from zero, one closed is lost. */
export const backendCpuBetween = (before: Map<number, number>, after: Map<number, number>): number =>
  [...after].reduce((sum, [pid, seconds]) => sum + seconds - (before.get(pid) ?? 0), 0);
