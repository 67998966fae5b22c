import type { Command } from 'commander';
import { apiCommand } from '../options.ts';
import { sandboxClient, type Client, type ConnectionFlags } from '../client.ts';
import type { DeliverySummary, Page } from '../../shared/api-types.ts';
import { deliveryTable, sandboxNowMs } from '../delivery-format.ts';
import { printJson, say } from '../output.ts';

export interface ListFlags extends ConnectionFlags {
  topic?: string;
  endpoint?: string;
  limit?: string;
  cursor?: string;
}

/** Adds the list filters shared by `deliveries` and `dlq list`. */
export const listOptions = (cmd: Command) =>
  cmd
    .option('--topic <topic>', 'only this topic')
    .option('--endpoint <id>', 'only this endpoint (whe_…)')
    .option('--limit <n>', 'how many, 1–100', '20')
    .option('--cursor <cursor>', 'the page after this cursor (from --json output)');

/** Fetches one page of a delivery list and prints it as a table, or the page as JSON. */
export async function printDeliveryPage(client: Client, path: string, params: Record<string, string | undefined>, json?: boolean): Promise<void> {
  const query = new URLSearchParams(Object.entries(params).filter((e): e is [string, string] => e[1] !== undefined));
  const page = await client.request<Page<DeliverySummary>>('GET', `${path}?${query}`);
  if (json) return printJson(page);
  if (page.data.length === 0) return say('No deliveries.');
  for (const line of deliveryTable(page.data, await sandboxNowMs(client))) say(line);
  if (page.nextCursor) say(`… more: --cursor ${page.nextCursor}`);
}

/** `sandbay deliveries [--status S] [--topic T] [--endpoint ID] [--limit N]`: the delivery log, newest first. */
export function deliveriesCommand(program: Command): void {
  listOptions(apiCommand(program, 'deliveries', 'list deliveries, newest first'))
    .option('--status <status>', 'pending, succeeded or dead')
    .action(async (flags: ListFlags & { status?: string }) => {
      const client = await sandboxClient(flags);
      await printDeliveryPage(client, '/api/v1/webhooks/deliveries', {
        status: flags.status, topic: flags.topic, endpointId: flags.endpoint, limit: flags.limit, cursor: flags.cursor,
      }, flags.json);
    });
}
