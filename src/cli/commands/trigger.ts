import type { Command } from 'commander';
import { apiCommand } from '../options.ts';
import { sandboxClient, type ConnectionFlags } from '../client.ts';
import { inspectorLink, latestAttemptLine, sandboxNowMs, waitForAttempts } from '../delivery-format.ts';
import { printJson, say } from '../output.ts';

interface TriggerFlags extends ConnectionFlags {
  to: string;
  wait: boolean;
}

// An attempt times out after 10 s (SPEC §5.3); a little more covers recording it.
const firstAttemptWaitMs = 15_000;

/** `sandbay trigger <topic> --to <url|endpointId>`: a test webhook (SPEC §5.4), then its first attempt. */
export function triggerCommand(program: Command): void {
  apiCommand(program, 'trigger <topic>', 'send a realistic sample of a topic, signed and retried like a real delivery')
    .requiredOption('--to <target>', 'a receiver URL or a registered endpoint id (whe_…)')
    .option('--no-wait', 'return at once instead of waiting for the first attempt')
    .action(trigger);
}

async function trigger(topic: string, flags: TriggerFlags): Promise<void> {
  const client = await sandboxClient(flags);
  const sent = await client.request<{ deliveryId: string }>('POST', '/api/v1/webhooks/test', { body: { topic, endpoint: flags.to } });
  if (!flags.wait) {
    if (flags.json) printJson(sent);
    else say(`${sent.deliveryId}  ${topic}  → ${flags.to}  · pending`);
    return;
  }
  const delivery = await waitForAttempts(client, sent.deliveryId, 1, firstAttemptWaitMs);
  if (flags.json) return printJson(delivery);
  say(latestAttemptLine(delivery, await sandboxNowMs(client)));
  say(`Inspect: ${inspectorLink(client, delivery)}`);
}
