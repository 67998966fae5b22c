import type { Command } from 'commander';
import type { Endpoint } from '../../shared/api-types.ts';
import { didYouMean, suggestPatterns } from '../../shared/suggest.ts';
import { isValidPattern } from '../../shared/topics.ts';
import { isSchemeName, schemeNames, type SchemeName } from '../../shared/schemes.ts';
import { apiCommand, withScheme } from '../options.ts';
import { sandboxClient, type Client, type ConnectionFlags } from '../client.ts';
import { describeChaos, parseChaos } from '../chaos-flag.ts';
import { CliError } from '../errors.ts';
import { ListenPrinter } from '../listen-printer.ts';
import { openLiveFeed } from '../live-feed.ts';
import { signedWith } from '../output.ts';

interface ListenFlags extends ConnectionFlags {
  forwardTo?: string;
  topics: string;
  chaos?: string;
  seed?: string;
  signature?: string;
}

/** Resolves on the first Ctrl-C or SIGTERM; a second one kills the process as usual. */
function interrupted(): Promise<void> {
  return new Promise((resolve) => {
    const stop = () => {
      process.off('SIGINT', stop);
      process.off('SIGTERM', stop);
      resolve();
    };
    process.on('SIGINT', stop);
    process.on('SIGTERM', stop);
  });
}

async function createTemporaryEndpoint(
  client: Client,
  url: string,
  topics: string[],
  chaos?: ReturnType<typeof parseChaos>,
  signature?: SchemeName[],
): Promise<Endpoint> {
  return client.request<Endpoint>('POST', '/api/v1/webhooks/endpoints', {
    body: {
      url: withScheme(url),
      topics,
      description: 'sandbay listen --forward-to (temporary: deleted when listen stops)',
      chaos,
      signature,
    },
  });
}

/** --signature standard-webhooks,sandbay: the schemes the temporary endpoint signs with. */
function schemesOf(value: string): SchemeName[] {
  const names = value
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  const unknown = names.find((n) => !isSchemeName(n));
  if (unknown || names.length === 0)
    throw new CliError(
      `unknown signing scheme ${unknown ?? '(none given)'}: use ${schemeNames.join(', ')} (comma-separated for several)`,
    );
  return names as SchemeName[];
}

/** ", signed standard-webhooks + …" when the endpoint does not use Sandbay's scheme alone. */

/** What the receiver verifies with, as the ready line says it: the secret, the public key, or both. */
function keysLine(endpoint: Endpoint): string {
  const hmac = endpoint.signature.some((s) => s !== 'standard-webhooks-ed25519');
  const parts = [
    ...(hmac ? [`Your webhook signing secret is ${endpoint.secret}`] : []),
    ...(endpoint.publicKey ? [`Your ed25519 public key is ${endpoint.publicKey}`] : []),
  ];
  return parts.join('. ');
}

/** `sandbay listen [--forward-to URL] [--topics …]`: tails deliveries live, like `stripe listen` (SPEC §6). */
export function listenCommand(program: Command): void {
  apiCommand(program, 'listen', "tail the sandbox's deliveries live; --forward-to sends them to your receiver")
    .option('--forward-to <url>', 'register a temporary endpoint at this URL, print its secret, delete it on exit')
    .option('--topics <list>', 'comma-separated topics or patterns (order.*, payout.retry.*)', '*')
    .option(
      '--chaos <faults>',
      'with --forward-to, inject the faults real senders cause: duplicate=0.2,reorder=5s,delay=500ms',
    )
    .option('--seed <n>', 'with --chaos, the seed that makes the faults reproducible')
    .option(
      '--signature <schemes>',
      `with --forward-to, how deliveries are signed: ${schemeNames.join(', ')}, or several comma-separated (default sandbay)`,
    )
    .action(listen);
}

async function listen(flags: ListenFlags): Promise<void> {
  const topics = flags.topics
    .split(',')
    .map((t) => t.trim())
    .filter(Boolean);
  const unknown = topics.find((t) => !isValidPattern(t));
  if (topics.length === 0)
    throw new CliError('no topic given: --topics takes topics, <category>.* or * (`sandbay topics` lists all 33)');
  if (unknown)
    throw new CliError(
      `Unknown topic ${unknown}.${didYouMean(suggestPatterns(unknown))} \`sandbay topics\` lists all 33.`,
    );
  if (flags.chaos && !flags.forwardTo)
    throw new CliError('--chaos needs --forward-to (the faults are injected into deliveries to your receiver)');
  if (flags.seed !== undefined && !flags.chaos) throw new CliError('--seed goes with --chaos');
  if (flags.signature !== undefined && !flags.forwardTo)
    throw new CliError('--signature needs --forward-to (it is how the temporary endpoint signs)');
  const signature = flags.signature === undefined ? undefined : schemesOf(flags.signature);
  const chaos = flags.chaos ? parseChaos(flags.chaos, flags.seed) : undefined;
  const client = await sandboxClient(flags);
  const stop = interrupted();
  const endpoint = flags.forwardTo
    ? await createTemporaryEndpoint(client, flags.forwardTo, topics, chaos, signature)
    : undefined;
  const printer = new ListenPrinter(client, { endpoint, topics, json: flags.json });
  const feed = openLiveFeed(
    client,
    (m) => printer.push(m),
    (up) => printer.note(up ? '> Reconnected.' : '> Connection lost; reconnecting…'),
  );
  try {
    const first = await Promise.race([feed.opened.then(() => 'open' as const), feed.failed, stop]);
    if (first !== 'open') return;
    const filter = topics.join(',') === '*' ? '' : ` (${topics.join(', ')})`;
    const sandbox = client.connection.sandbox ? ` of sandbox ${client.connection.sandbox}` : '';
    if (endpoint?.chaos)
      printer.note(`> Chaos: ${describeChaos(endpoint.chaos)}; each fault is marked on its attempt in the inspector.`, {
        event: 'chaos',
        chaos: endpoint.chaos,
      });
    printer.note(
      endpoint
        ? `> Ready! Forwarding deliveries${filter} to ${endpoint.url} (temporary endpoint ${endpoint.id}${signedWith(endpoint.signature)}). ${keysLine(endpoint)} (^C to quit)`
        : `> Ready! Listening to deliveries${sandbox}${filter} (^C to quit)`,
      { event: 'ready', sandbox: client.connection.sandbox ?? null, endpoint: endpoint ?? null },
    );
    await Promise.race([stop, feed.failed]);
  } finally {
    feed.close();
    if (endpoint) {
      await client.request('DELETE', `/api/v1/webhooks/endpoints/${endpoint.id}`);
      printer.note(`> Deleted the temporary endpoint ${endpoint.id}.`, { event: 'stopped', endpointId: endpoint.id });
    }
  }
}
