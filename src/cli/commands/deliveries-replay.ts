import type { Command } from 'commander';
import type { DlqReplayJob, ReplayFilter } from '../../shared/api-types.ts';
import { sandboxClient, type Client, type ConnectionFlags } from '../client.ts';
import { sandboxNowMs } from '../delivery-format.ts';
import { parseDuration } from '../duration.ts';
import { CliError } from '../errors.ts';
import { apiCommand } from '../options.ts';
import { printJson, say } from '../output.ts';
import { describeJob, followJob } from '../replay-job.ts';

interface ReplayFilterFlags extends ConnectionFlags {
  topic?: string;
  status: string;
  endpoint?: string;
  since?: string;
  until?: string;
  to?: string;
  dryRun?: boolean;
  wait: boolean;
}

interface Preview {
  filter: ReplayFilter;
  total: number;
  data: {
    id: string;
    topic: string;
    status: string;
    endpointId: string | null;
    targetUrl: string | null;
    createdAt: string;
  }[];
}

/** `--since 2h` (that long before the sandbox's now) or an RFC 3339 time, as the sandbox time the API takes. */
function sandboxTime(flag: string, text: string | undefined, nowMs: number): string | undefined {
  if (text === undefined) return undefined;
  if (/^\d{4}-\d\d-\d\dT/.test(text)) {
    const at = Date.parse(text);
    if (Number.isNaN(at)) throw new CliError(`${flag} ${text} is not a time`);
    return new Date(at).toISOString();
  }
  return new Date(nowMs - parseDuration(text) * 1000).toISOString();
}

async function filterOf(client: Client, flags: ReplayFilterFlags) {
  const nowMs = flags.since || flags.until ? await sandboxNowMs(client) : 0;
  return {
    statuses: flags.status.split(',').map((s) => s.trim()),
    topic: flags.topic,
    endpointId: flags.endpoint,
    since: sandboxTime('--since', flags.since, nowMs),
    until: sandboxTime('--until', flags.until, nowMs),
    to: flags.to,
  };
}

/**
 * `sandbay deliveries replay`: the deliveries a filter names sent again, as a job on the server (issue 31;
 * `sandbay replay` replays fixture files, docs/decisions/replay-by-filter.md).
 */
export function deliveriesReplayCommand(deliveries: Command): void {
  apiCommand(
    deliveries,
    'replay',
    'replay the deliveries a filter names (a job on the server, followed here; --dry-run lists them)',
  )
    .option('--topic <pattern>', "a topic or a pattern, e.g. 'order.*'")
    .option(
      '--status <statuses>',
      'comma-separated: failed (pending after a failed attempt), pending, succeeded, dead',
      'failed,dead',
    )
    .option('--endpoint <id>', 'only this endpoint (whe_…)')
    .option('--since <when>', 'created at most this long ago on the sandbox clock (2h, 30m) or since an RFC 3339 time')
    .option('--until <when>', 'created more than this long ago on the sandbox clock, or before an RFC 3339 time')
    .option(
      '--to <url>',
      "send them to this URL instead (a local receiver): new deliveries, signed as the original's endpoint",
    )
    .option('--dry-run', 'list what would be replayed, send nothing')
    .option('--no-wait', 'start the job and print it instead of following it')
    .action(async (flags: ReplayFilterFlags) => {
      const client = await sandboxClient(flags);
      const filter = await filterOf(client, flags);
      if (flags.dryRun) {
        const preview = await client.request<Preview>('POST', '/api/v1/webhooks/deliveries/replay', {
          body: { ...filter, dryRun: true },
        });
        if (flags.json) return printJson(preview);
        for (const d of preview.data)
          say(`${d.id}  ${d.topic}  ${d.status}  ${d.endpointId ?? d.targetUrl}  ${d.createdAt}`);
        return say(
          `${preview.total} ${preview.total === 1 ? 'delivery' : 'deliveries'} would be replayed${flags.to ? ` to ${flags.to}` : ''} (dry run: nothing sent)`,
        );
      }
      const started = await client.request<DlqReplayJob>('POST', '/api/v1/webhooks/deliveries/replay', {
        body: filter,
      });
      if (!flags.wait) {
        if (flags.json) return printJson(started);
        return say(
          `Started ${started.id}: replaying ${started.total} deliveries. Follow it: sandbay dlq status ${started.id}`,
        );
      }
      const job = await followJob(client, started);
      if (job.state !== 'completed') throw new CliError(describeJob(job));
      if (flags.json) return printJson(job);
      say(describeJob(job));
    });
}
