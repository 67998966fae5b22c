import type { Command } from 'commander';
import { apiCommand } from '../options.ts';
import { sandboxClient, type Client, type ConnectionFlags } from '../client.ts';
import type { DeliverySummary, Page } from '../../shared/api-types.ts';
import { deliveryTable, sandboxNowMs } from '../delivery-format.ts';
import { printJson, say } from '../output.ts';
import { formatBytes, longRequest, saveBody } from '../download.ts';
import { deliveriesDiffCommand } from './deliveries-diff.ts';
import { deliveriesReplayCommand } from './deliveries-replay.ts';

export interface ListFlags extends ConnectionFlags {
  topic?: string;
  endpoint?: string;
  limit?: string;
  cursor?: string;
}

type DeliveriesFlags = ListFlags & { status?: string; har?: string; topics?: string; includeChecks?: boolean };

/** Adds the list filters shared by `deliveries` and `dlq list`. */
export const listOptions = (cmd: Command) =>
  cmd
    .option('--topic <topic>', 'only this topic')
    .option('--endpoint <id>', 'only this endpoint (whe_…)')
    .option('--limit <n>', 'how many, 1–100', '20')
    .option('--cursor <cursor>', 'the page after this cursor (from --json output)');

/** Fetches one page of a delivery list and prints it as a table, or the page as JSON. */
export async function printDeliveryPage(
  client: Client,
  path: string,
  params: Record<string, string | undefined>,
  json?: boolean,
): Promise<void> {
  const query = new URLSearchParams(Object.entries(params).filter((e): e is [string, string] => e[1] !== undefined));
  const page = await client.request<Page<DeliverySummary>>('GET', `${path}?${query}`);
  if (json) return printJson(page);
  if (page.data.length === 0) return say('No deliveries.');
  for (const line of deliveryTable(page.data, await sandboxNowMs(client))) say(line);
  if (page.nextCursor) say(`… more: --cursor ${page.nextCursor}`);
}

/** Writes the deliveries a filter matches as a HAR 1.2 file, every attempt an entry. */
async function writeHar(
  client: Client,
  out: string,
  params: Record<string, string | undefined>,
  json?: boolean,
): Promise<void> {
  const query = new URLSearchParams(
    Object.entries({ format: 'har', ...params }).filter((e): e is [string, string] => e[1] !== undefined),
  );
  const res = await longRequest(client, 'GET', `/api/v1/webhooks/deliveries/export?${query}`);
  const bytes = await saveBody(res, out);
  if (json) return printJson({ file: out, bytes });
  say(`Wrote ${out} (${formatBytes(bytes)}): open it in Chrome DevTools (Network → Import HAR) or any HAR viewer.`);
}

/**
 * `sandbay deliveries [--status S] [--topic T] [--endpoint ID] [--limit N] [--har FILE]`: the delivery log, newest
 * first.
 */
export function deliveriesCommand(program: Command): void {
  const deliveries = listOptions(
    apiCommand(program, 'deliveries', 'list deliveries, newest first (or write them as a HAR file)'),
  )
    // Its own options stay before `replay`, whose --topic and --status mean that subcommand's.
    .enablePositionalOptions();
  deliveriesReplayCommand(deliveries);
  deliveriesDiffCommand(deliveries);
  deliveries
    .option('--status <status>', 'pending, succeeded or dead')
    .option(
      '--har <file>',
      'write the matching deliveries as HAR 1.2, every attempt an entry (--limit then defaults to 1000)',
    )
    .option('--topics <patterns>', "with --har: comma-separated topic patterns, e.g. 'order.*'")
    .option('--include-checks', "also a receiver check's probes (left out otherwise)")
    .action(async (flags: DeliveriesFlags, cmd: Command) => {
      const includeChecks = flags.includeChecks ? 'true' : undefined;
      const client = await sandboxClient(flags);
      if (flags.har) {
        const limit = cmd.getOptionValueSource('limit') === 'default' ? undefined : flags.limit;
        return writeHar(
          client,
          flags.har,
          {
            status: flags.status,
            topic: flags.topic,
            topics: flags.topics,
            endpointId: flags.endpoint,
            limit,
            includeChecks,
          },
          flags.json,
        );
      }
      await printDeliveryPage(
        client,
        '/api/v1/webhooks/deliveries',
        {
          status: flags.status,
          topic: flags.topic,
          endpointId: flags.endpoint,
          limit: flags.limit,
          cursor: flags.cursor,
          includeChecks,
        },
        flags.json,
      );
    });
}
