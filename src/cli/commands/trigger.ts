import type { Command } from 'commander';
import { apiCommand, withScheme } from '../options.ts';
import { sandboxClient, type ConnectionFlags } from '../client.ts';
import { dataChangeOptions, dataChanges, type DataChangeFlags } from '../data-changes.ts';
import { inspectorLink, latestAttemptLine, sandboxNowMs, waitForAttempts } from '../delivery-format.ts';
import { printJson, say } from '../output.ts';

interface TriggerFlags extends ConnectionFlags, DataChangeFlags {
  to: string;
  wait: boolean;
}

// An attempt times out after 10 s (SPEC §5.3); a little more covers recording it.
export const firstAttemptWaitMs = 15_000;

/**
 * `sandbay trigger <topic> --to <url|endpointId> [--override …] [--add …] [--data @file]`: a test webhook (SPEC §5.4,
 * §11), then its first attempt.
 */
export function triggerCommand(program: Command): void {
  dataChangeOptions(
    apiCommand(
      program,
      'trigger <topic>',
      'send a realistic sample of a topic, signed and retried like a real delivery, optionally with your own data',
    ).requiredOption('--to <target>', 'a receiver URL or a registered endpoint id (whe_…)'),
    'the sample',
  )
    .option('--no-wait', 'return at once instead of waiting for the first attempt')
    .action(trigger);
}

async function trigger(topic: string, flags: TriggerFlags): Promise<void> {
  const changes = dataChanges(flags);
  const client = await sandboxClient(flags);
  // A registered endpoint by id, or a URL written as users write them (localhost:3000/hook).
  const endpoint = /^whe_/.test(flags.to) ? flags.to : withScheme(flags.to);
  const sent = await client.request<{ deliveryId: string }>('POST', '/api/v1/webhooks/test', {
    body: { topic, endpoint, ...changes },
  });
  if (!flags.wait) {
    if (flags.json) printJson(sent);
    else say(`${sent.deliveryId}  ${topic}  → ${endpoint}  · pending`);
    return;
  }
  const delivery = await waitForAttempts(client, sent.deliveryId, 1, firstAttemptWaitMs);
  if (flags.json) return printJson(delivery);
  say(latestAttemptLine(delivery, await sandboxNowMs(client)));
  say(`Inspect: ${await inspectorLink(client, delivery)}`);
}
