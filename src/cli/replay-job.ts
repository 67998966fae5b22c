import type { DlqReplayJob } from '../shared/api-types.ts';
import type { Client } from './client.ts';
import { CliError } from './errors.ts';

const pollMs = 500;
// Without a terminal (CI logs, pipes), a progress line at most this often.
const logEveryMs = 5000;

const n = (value: number) => value.toLocaleString('en-US');

/** "25 succeeded, 0 failed" (and skipped, when any were). */
const replayCounts = (job: DlqReplayJob) =>
  `${n(job.succeeded)} succeeded, ${n(job.failed)} failed${job.skipped ? `, ${n(job.skipped)} skipped (no longer dead, or endpoint deleted or disabled)` : ''}`;

/** One line for a job in any state. */
export function describeJob(job: DlqReplayJob): string {
  const of = `${n(job.done)} of ${n(job.total)}`;
  switch (job.state) {
    case 'running':
      return `${job.id} running: ${of} replayed — ${replayCounts(job)}`;
    case 'completed':
      return `Replayed ${n(job.total)}${job.filter?.to ? ` to ${job.filter.to} as new deliveries` : ''}: ${replayCounts(job)}`;
    case 'cancelled':
      return `${job.id} cancelled after ${of}: ${replayCounts(job)}`;
    case 'interrupted':
      return `${job.id} interrupted (the engine running it stopped) after ${of}: ${replayCounts(job)}; what it did not replay is still dead`;
  }
}

export const jobPath = (id: string) => `/api/v1/webhooks/dlq-replays/${encodeURIComponent(id)}`;

/**
 * Follows a replay job until it ends, showing progress on stderr (rewritten in place on a
 * terminal); Ctrl-C cancels the job on the server before exiting.
 */
export async function followJob(client: Client, started: DlqReplayJob): Promise<DlqReplayJob> {
  const tty = process.stderr.isTTY;
  let job = started;
  let lastLog = 0;
  let interrupted = false;
  const onSigint = () => {
    interrupted = true;
  };
  process.on('SIGINT', onSigint);
  try {
    for (;;) {
      if (interrupted) {
        process.stderr.write(`${tty ? '\r\x1b[K' : ''}Cancelling ${job.id}…\n`);
        job = await client.request<DlqReplayJob>('POST', `${jobPath(job.id)}/cancel`).catch(() => job);
        throw new CliError(describeJob(job));
      }
      if (job.state !== 'running') break;
      if (tty)
        process.stderr.write(`\r\x1b[KReplaying ${n(job.done)}/${n(job.total)} — ${replayCounts(job)} (^C cancels)`);
      else if (Date.now() - lastLog >= logEveryMs) {
        process.stderr.write(`Replaying ${n(job.done)}/${n(job.total)} — ${replayCounts(job)}\n`);
        lastLog = Date.now();
      }
      await new Promise((resolve) => setTimeout(resolve, pollMs));
      if (!interrupted) job = await client.request<DlqReplayJob>('GET', jobPath(job.id));
    }
    if (tty) process.stderr.write('\r\x1b[K');
    return job;
  } finally {
    process.off('SIGINT', onSigint);
  }
}
