import type { Command } from 'commander';
import { apiCommand } from '../options.ts';
import { sandboxClient, type Client, type ConnectionFlags } from '../client.ts';
import type { Delivery as DeliveryDetail } from '../../shared/api-types.ts';
import { dataChangeOptions, dataChanges, type DataChangeFlags, type DataChanges } from '../data-changes.ts';
import { inspectorLink, latestAttemptLine, sandboxNowMs, waitForAttempts } from '../delivery-format.ts';
import { firstAttemptWaitMs } from './trigger.ts';
import { printJson, say } from '../output.ts';

const deliveryPath = (id: string) => `/api/v1/webhooks/deliveries/${encodeURIComponent(id)}`;

/** Replays one delivery now (an extra attempt) and prints the attempt's outcome. */
async function replayOne(client: Client, id: string, json?: boolean): Promise<void> {
  await printAttempt(client, await client.request<DeliveryDetail>('POST', `${deliveryPath(id)}/replay`), json);
}

/** Prints a delivery's latest attempt and its inspector link, or the delivery as JSON. */
export async function printAttempt(client: Client, delivery: DeliveryDetail, json: boolean | undefined): Promise<void> {
  if (json) return printJson(delivery);
  say(latestAttemptLine(delivery, await sandboxNowMs(client)));
  say(`Inspect: ${await inspectorLink(client, delivery)}`);
}

interface ResendFlags extends ConnectionFlags, DataChangeFlags {
  new?: boolean;
  keepId?: boolean;
  wait: boolean;
}

/**
 * `sandbay resend <deliveryId>`: without flags, attempt it now — the next retry if pending, a replay otherwise
 * (SPEC §5.3); with an edit, --new or --keep-id, send a new delivery made from it (issue 31,
 * docs/decisions/resend-cli.md).
 */
export function resendCommand(program: Command): void {
  dataChangeOptions(
    apiCommand(
      program,
      'resend <deliveryId>',
      'attempt a delivery now (its next retry if pending, else a replay), or send it again edited, as a new delivery',
    ),
    'the delivery',
  )
    .option('--new', 'send it unchanged as a new delivery (implied by --override, --add, --remove, --data, --keep-id)')
    .option('--keep-id', "the new delivery carries the original's deliveryId, to test that the receiver dedupes it")
    .option('--no-wait', "with a new delivery: return at once instead of waiting for the new delivery's first attempt")
    .action(async (id: string, flags: ResendFlags) => {
      const changes = dataChanges(flags);
      const client = await sandboxClient(flags);
      if (flags.new || flags.keepId || changes.data || changes.patch) return resendAsNew(client, id, flags, changes);
      const { status } = await client.request<DeliveryDetail>('GET', deliveryPath(id));
      if (status !== 'pending') return replayOne(client, id, flags.json);
      await printAttempt(client, await client.request<DeliveryDetail>('POST', `${deliveryPath(id)}/retry`), flags.json);
    });
}

async function resendAsNew(client: Client, id: string, flags: ResendFlags, changes: DataChanges): Promise<void> {
  const body = { ...changes, ...(flags.keepId ? { keepDeliveryId: true } : {}) };
  const resent = await client.request<DeliveryDetail>('POST', `${deliveryPath(id)}/resend`, { body });
  const delivery = flags.wait ? await waitForAttempts(client, resent.id, 1, firstAttemptWaitMs) : resent;
  if (flags.json) return printJson(delivery);
  const how = resent.resentFrom?.edited ? 'edited' : 'unchanged';
  const sentAs = flags.keepId ? ` (keeping the deliveryId ${id})` : '';
  say(`Resent ${id} as ${resent.id}, ${how}${sentAs}`);
  if (flags.wait) say(latestAttemptLine(delivery, await sandboxNowMs(client)));
  say(`Inspect: ${await inspectorLink(client, delivery)}`);
}
