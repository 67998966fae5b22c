import type { Command } from 'commander';
import type { FailedJob, Page } from '../../shared/api-types.ts';
import { apiCommand } from '../options.ts';
import { sandboxClient, type ConnectionFlags } from '../client.ts';
import { printJson, say, table } from '../output.ts';

interface FailedFlags extends ConnectionFlags {
  /** Has a default, so always set. */
  limit: string;
  cursor?: string;
}

const failedPath = '/api/v1/sandbox/jobs/failed';

/**
 * `sandbay jobs failed` and `jobs retry <jobId>`: the jobs on the sandbox clock set aside because their row could
 * not be processed (docs/decisions/failed-jobs.md), as the inspector's banner shows them.
 */
export function jobsCommand(program: Command): void {
  const jobs = program
    .command('jobs')
    .description('jobs on the sandbox clock (expiries, payout retries, reports…) set aside because their row failed');
  apiCommand(jobs, 'failed', 'list the jobs set aside as failed, with their reasons, newest first')
    .option('--limit <n>', 'how many, 1–100', '20')
    .option('--cursor <cursor>', 'the page after this cursor (from --json output)')
    .action(async (flags: FailedFlags) => {
      const query = new URLSearchParams({ limit: flags.limit, ...(flags.cursor && { cursor: flags.cursor }) });
      const page = await (await sandboxClient(flags)).request<Page<FailedJob>>('GET', `${failedPath}?${query}`);
      if (flags.json) return printJson(page);
      if (page.data.length === 0) return say('No failed jobs.');
      for (const line of table(
        ['job', 'kind', 'object', 'due', 'reason'],
        page.data.map((j) => [j.id, j.kind, j.objectId, j.dueAt ?? '—', j.reason]),
      ))
        say(line);
      if (page.nextCursor) say(`… more: --cursor ${page.nextCursor}`);
    });
  apiCommand(
    jobs,
    'retry <jobId>',
    'run a failed job again once its row is repaired (it is listed anew if it fails)',
  ).action(async (id: string, flags: ConnectionFlags) => {
    const client = await sandboxClient(flags);
    const job = await client.request<FailedJob>('POST', `${failedPath}/${encodeURIComponent(id)}/retry`);
    if (flags.json) return printJson(job);
    say(
      `Retrying ${job.id}: ${job.kind} for ${job.objectId} runs now; \`sandbay jobs failed\` lists it if it fails again`,
    );
  });
}
