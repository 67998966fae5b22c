import type { Command } from 'commander';
import type { Endpoint } from '../../shared/api-types.ts';
import { didYouMean, suggestPatterns } from '../../shared/suggest.ts';
import { isValidPattern } from '../../shared/topics.ts';
import { isSchemeName, schemeNames, type SchemeName } from '../../shared/schemes.ts';
import { apiCommand, collect } from '../options.ts';
import { sandboxClient, type Client, type ConnectionFlags } from '../client.ts';
import { describeChaos, parseChaos } from '../chaos-flag.ts';
import { CliError } from '../errors.ts';
import { ListenPrinter } from '../listen-printer.ts';
import { listenRoutes, type ListenRoute } from '../listen-routes.ts';
import { ListenSecrets } from '../listen-secret.ts';
import { defaultDataDir } from '../../server/data-dir.ts';
import { openLiveFeed } from '../live-feed.ts';
import { signedWith } from '../output.ts';

interface ListenFlags extends ConnectionFlags {
  forwardTo?: string;
  forward: string[];
  newSecret?: boolean;
  printResponse?: boolean;
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
  route: ListenRoute,
  secret: string | undefined,
  chaos?: ReturnType<typeof parseChaos>,
  signature?: SchemeName[],
): Promise<Endpoint> {
  return client.request<Endpoint>('POST', '/api/v1/webhooks/endpoints', {
    body: {
      url: route.url,
      topics: route.subscription,
      description: `sandbay listen ${route.name ? `--forward ${route.name}` : '--forward-to'} (temporary: deleted when listen stops)`,
      chaos,
      signature,
      secret,
    },
  });
}

/**
 * One temporary endpoint per route, all signed with the sandbox's listen secret: the one kept from the last
 * run (./listen-secret.ts), or the first endpoint's new one, kept for the next.
 */
async function createRouteEndpoints(
  client: Client,
  routes: ListenRoute[],
  options: {
    newSecret?: boolean;
    chaos?: ReturnType<typeof parseChaos>;
    signature?: SchemeName[];
    /** Where the listen secret is kept: --data-dir, SANDBAY_DATA_DIR, else the platform's data dir. */
    dataDir: string;
  },
): Promise<Endpoint[]> {
  const sandbox = await client.request<{ id: string }>('GET', '/api/v1/sandbox').then(
    (s) => s.id,
    () => undefined,
  );
  const store = sandbox ? new ListenSecrets(options.dataDir) : undefined;
  let secret = options.newSecret ? undefined : store?.get(client.connection.url, sandbox!);
  const endpoints: Endpoint[] = [];
  try {
    for (const route of routes) {
      const endpoint = await createTemporaryEndpoint(client, route, secret, options.chaos, options.signature);
      secret ??= endpoint.secret;
      endpoints.push(endpoint);
    }
  } catch (err) {
    await deleteEndpoints(client, endpoints);
    throw err;
  }
  if (secret) store?.set(client.connection.url, sandbox!, secret);
  return endpoints;
}

const deleteEndpoints = (client: Client, endpoints: Endpoint[]) =>
  Promise.all(endpoints.map((e) => client.request('DELETE', `/api/v1/webhooks/endpoints/${e.id}`)));

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
    .option(
      '--forward <pattern=url>',
      "route by topic, first match wins: 'order.*=http://localhost:3000/orders' (repeatable; '*=URL' catches the rest)",
      collect,
      [],
    )
    .option('--print-response', "with forwarding, print each answer's status, headers, body excerpt and time")
    .option('--new-secret', "forward with a new signing secret (default: the sandbox's secret from the last listen)")
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
  const forwarding = flags.forwardTo !== undefined || flags.forward.length > 0;
  const routes = forwarding ? listenRoutes(flags.forward, flags.forwardTo, topics) : [];
  for (const [flag, given] of [
    ['--chaos', flags.chaos],
    ['--signature', flags.signature],
    ['--print-response', flags.printResponse],
    ['--new-secret', flags.newSecret],
  ] as const)
    if (given !== undefined && !forwarding)
      throw new CliError(`${flag} needs --forward-to or --forward (it is about deliveries to your receiver)`);
  if (flags.seed !== undefined && !flags.chaos) throw new CliError('--seed goes with --chaos');
  const signature = flags.signature === undefined ? undefined : schemesOf(flags.signature);
  const chaos = flags.chaos ? parseChaos(flags.chaos, flags.seed) : undefined;
  const client = await sandboxClient(flags);
  const stop = interrupted();
  const endpoints = forwarding
    ? await createRouteEndpoints(client, routes, {
        newSecret: flags.newSecret,
        chaos,
        signature,
        dataDir: flags.dataDir || process.env.SANDBAY_DATA_DIR || defaultDataDir(),
      })
    : [];
  const printer = new ListenPrinter(client, {
    routes: endpoints.map((endpoint, i) => ({ endpoint, name: routes[i].name })),
    topics,
    json: flags.json,
    printResponse: flags.printResponse,
  });
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
    const [endpoint] = endpoints;
    if (endpoint?.chaos)
      printer.note(`> Chaos: ${describeChaos(endpoint.chaos)}; each fault is marked on its attempt in the inspector.`, {
        event: 'chaos',
        chaos: endpoint.chaos,
      });
    const json = { event: 'ready', sandbox: client.connection.sandbox ?? null, endpoint: endpoint ?? null };
    if (!endpoint) printer.note(`> Ready! Listening to deliveries${sandbox}${filter} (^C to quit)`, json);
    else if (!routes[0].name)
      printer.note(
        `> Ready! Forwarding deliveries${filter} to ${endpoint.url} (temporary endpoint ${endpoint.id}${signedWith(endpoint.signature)}). ${keysLine(endpoint)} (^C to quit)`,
        json,
      );
    else {
      const table = endpoints.map((e, i) => `>   ${routes[i].name} → ${e.url} (${e.id})`).join('\n');
      printer.note(
        `> Ready! Forwarding by topic, first match wins${signedWith(endpoint.signature)}:\n${table}\n> ${keysLine(endpoint)} (^C to quit)`,
        { ...json, endpoints },
      );
    }
    await Promise.race([stop, feed.failed]);
  } finally {
    feed.close();
    await deleteEndpoints(client, endpoints);
    for (const { id } of endpoints)
      printer.note(`> Deleted the temporary endpoint ${id}.`, { event: 'stopped', endpointId: id });
  }
}
