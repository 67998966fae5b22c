import type { Command } from 'commander';
import { apiCommand } from '../options.ts';
import { sandboxClient, type ConnectionFlags } from '../client.ts';
import { CliError } from '../errors.ts';
import { printJson, say } from '../output.ts';
import { listOptions, printDeliveryPage, type ListFlags } from './deliveries.ts';
import { replayOne } from './resend.ts';

interface ReplayFlags extends ConnectionFlags {
  all?: boolean;
  topic?: string;
  endpoint?: string;
}

interface ReplayResult {
  replayed: number;
  succeeded: number;
  failed: number;
  skipped: number;
}

/** `sandbay dlq list` and `sandbay dlq replay <id>|--all [--topic T] [--endpoint ID]` (SPEC §5.3). */
export function dlqCommand(program: Command): void {
  const dlq = program.command('dlq').description('the dead-letter queue: deliveries that failed all five attempts');
  listOptions(apiCommand(dlq, 'list', 'list dead deliveries, newest first')).action(async (flags: ListFlags) => {
    const client = await sandboxClient(flags);
    await printDeliveryPage(client, '/api/v1/webhooks/dlq', { topic: flags.topic, endpointId: flags.endpoint, limit: flags.limit, cursor: flags.cursor }, flags.json);
  });
  apiCommand(dlq, 'replay [deliveryId]', 'replay one dead delivery, or --all of them')
    .option('--all', 'replay every dead delivery (narrow with --topic / --endpoint)')
    .option('--topic <topic>', 'with --all: only this topic')
    .option('--endpoint <id>', 'with --all: only this endpoint (whe_…)')
    .action(async (id: string | undefined, flags: ReplayFlags) => {
      if (id && (flags.all || flags.topic || flags.endpoint)) throw new CliError('give a delivery id or --all, not both');
      if (!id && !flags.all) throw new CliError('give a delivery id to replay, or --all');
      const client = await sandboxClient(flags);
      if (id) return replayOne(client, id, flags.json);
      const result = await client.request<ReplayResult>('POST', '/api/v1/webhooks/dlq/replay', { body: { topic: flags.topic, endpointId: flags.endpoint } });
      if (flags.json) return printJson(result);
      const skipped = result.skipped ? `, ${result.skipped} skipped (endpoint deleted or already resent)` : '';
      say(`Replayed ${result.replayed}: ${result.succeeded} succeeded, ${result.failed} failed${skipped}`);
    });
}
