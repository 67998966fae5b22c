import type { Command } from 'commander';
import { apiCommand, withScheme } from '../options.ts';
import { sandboxClient, type ConnectionFlags } from '../client.ts';
import { collectDataFlag, dataChanges, type DataFlag } from '../data-changes.ts';
import { inspectorLink, latestAttemptLine, sandboxNowMs, waitForAttempts } from '../delivery-format.ts';
import { printJson, say } from '../output.ts';

interface TriggerFlags extends ConnectionFlags {
  to: string;
  wait: boolean;
  data?: string;
  override?: DataFlag[];
  add?: DataFlag[];
  remove?: DataFlag[];
}

// An attempt times out after 10 s (SPEC §5.3); a little more covers recording it.
const firstAttemptWaitMs = 15_000;

/**
 * `sandbay trigger <topic> --to <url|endpointId> [--override …] [--add …] [--data @file]`: a test webhook (SPEC §5.4,
 * §11), then its first attempt.
 */
export function triggerCommand(program: Command): void {
  apiCommand(
    program,
    'trigger <topic>',
    'send a realistic sample of a topic, signed and retried like a real delivery, optionally with your own data',
  )
    .requiredOption('--to <target>', 'a receiver URL or a registered endpoint id (whe_…)')
    .option(
      '--override <path=value>',
      'set a field the sample has, e.g. data.total=10.5 or data.variants[0].price=3 (repeatable)',
      collectDataFlag('replace'),
    )
    .option(
      '--add <path=value>',
      'add a field the sample lacks, e.g. data.note=hi (repeatable)',
      collectDataFlag('add'),
    )
    .option('--remove <path>', 'remove a field, e.g. data.note (repeatable)', collectDataFlag('remove'))
    .option('--data <json>', "a JSON object merged over the sample's data (RFC 7396): inline, or @file.json")
    .option('--no-wait', 'return at once instead of waiting for the first attempt')
    .addHelpText(
      'after',
      '\n--data is merged first, then --override, --add and --remove apply in the order given. Values are JSON when they\n' +
        "parse (10.5, true, null, '\"123\"'), else text. The result is checked against the topic's schema before anything is\n" +
        'sent: a mismatch is refused, naming the path.',
    )
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
