import type { Command } from 'commander';
import { apiCommand } from '../options.ts';
import { sandboxClient, type Client, type ConnectionFlags } from '../client.ts';
import type { Delivery as DeliveryDetail } from '../../shared/api-types.ts';
import { inspectorLink, latestAttemptLine, sandboxNowMs } from '../delivery-format.ts';
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

/** `sandbay resend <deliveryId>`: attempt it now — the next retry if pending, a replay otherwise (SPEC §5.3). */
export function resendCommand(program: Command): void {
  apiCommand(program, 'resend <deliveryId>', 'attempt a delivery now: its next retry if pending, else a replay').action(
    async (id: string, flags: ConnectionFlags) => {
      const client = await sandboxClient(flags);
      const { status } = await client.request<DeliveryDetail>('GET', deliveryPath(id));
      if (status !== 'pending') return replayOne(client, id, flags.json);
      await printAttempt(client, await client.request<DeliveryDetail>('POST', `${deliveryPath(id)}/retry`), flags.json);
    },
  );
}
