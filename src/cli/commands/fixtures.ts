import { readFileSync, writeFileSync } from 'node:fs';
import type { Command } from 'commander';
import type { Delivery, DeliverySummary, Page } from '../../shared/api-types.ts';
import { fixtureOf, fixturesFormatVersion, type Fixture, type FixturesFile } from '../../shared/fixtures.ts';
import { replayFixtures, replaySchemes, type ReplayResult, type ReplayScheme } from '../../receiver/fixtures-replay.ts';
import { matchesAnyPattern, patternList } from '../../shared/topics.ts';
import { sandboxClient, type Client, type ConnectionFlags } from '../client.ts';
import { longRequest, saveBody } from '../download.ts';
import { CliError } from '../errors.ts';
import { apiCommand, withScheme } from '../options.ts';
import { clip, printJson, say, table } from '../output.ts';

interface RecordFlags extends ConnectionFlags {
  out: string;
  topics?: string;
  status?: string;
  endpoint?: string;
  limit?: string;
  follow?: boolean;
  includeChecks?: boolean;
  count?: string;
  for?: string;
}

const topicFilter = (topics?: string) => {
  const patterns = patternList(topics);
  return (topic: string) => matchesAnyPattern(patterns, topic);
};

/** Records deliveries made from now on, until --count of them, --for seconds, or Ctrl-C. */
async function follow(client: Client, flags: RecordFlags): Promise<Fixture[]> {
  const wanted = topicFilter(flags.topics);
  const query = new URLSearchParams({ limit: '100' });
  if (flags.status) query.set('status', flags.status);
  if (flags.endpoint) query.set('endpointId', flags.endpoint);
  if (flags.includeChecks) query.set('includeChecks', 'true');
  const newest = async () =>
    (await client.request<Page<DeliverySummary>>('GET', `/api/v1/webhooks/deliveries?${query}`)).data;
  const known = new Set((await newest()).map((d) => d.id));
  const fixtures: Fixture[] = [];
  const count = flags.count ? Number(flags.count) : Infinity;
  const until = flags.for ? Date.now() + Number(flags.for) * 1000 : Infinity;
  let stopped = false;
  const stop = () => (stopped = true);
  process.once('SIGINT', stop);
  if (!flags.json)
    say(
      `Recording ${flags.topics ?? 'all topics'}${Number.isFinite(count) ? `, ${count} deliveries` : ''} — Ctrl-C to stop`,
    );
  try {
    while (!stopped && fixtures.length < count && Date.now() < until) {
      for (const d of (await newest()).reverse()) {
        if (known.has(d.id)) continue;
        known.add(d.id);
        if (!wanted(d.topic) || fixtures.length >= count) continue;
        const detail = await client.request<Delivery>('GET', `/api/v1/webhooks/deliveries/${encodeURIComponent(d.id)}`);
        fixtures.push(fixtureOf(detail));
        if (!flags.json) say(`  ${detail.topic}  ${detail.id}`);
      }
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
  } finally {
    process.off('SIGINT', stop);
  }
  return fixtures;
}

/**
 * `sandbay fixtures record --topics 'order.*' --out fixtures.json`: deliveries in the log, or (--follow) those made
 * from now on.
 */
async function record(flags: RecordFlags): Promise<void> {
  const client = await sandboxClient(flags);
  if (flags.follow) {
    const sandboxId = (await client.request<{ id: string }>('GET', '/api/v1/sandbox')).id;
    const fixtures = await follow(client, flags);
    const file: FixturesFile = {
      sandbayFixtures: fixturesFormatVersion,
      recordedAt: new Date().toISOString(),
      source: { sandboxId, url: client.url },
      fixtures,
    };
    writeFileSync(flags.out, `${JSON.stringify(file, null, 2)}\n`);
    return flags.json
      ? printJson({ file: flags.out, fixtures: fixtures.length })
      : say(`Wrote ${fixtures.length} fixtures to ${flags.out}`);
  }
  const query = new URLSearchParams({ format: 'fixtures' });
  for (const [key, value] of [
    ['topics', flags.topics],
    ['status', flags.status],
    ['endpointId', flags.endpoint],
    ['limit', flags.limit],
    ['includeChecks', flags.includeChecks ? 'true' : undefined],
  ] as const) {
    if (value) query.set(key, value);
  }
  await saveBody(await longRequest(client, 'GET', `/api/v1/webhooks/deliveries/export?${query}`), flags.out);
  const file = JSON.parse(readFileSync(flags.out, 'utf8')) as FixturesFile;
  if (flags.json) return printJson({ file: flags.out, fixtures: file.fixtures.length });
  say(
    `Wrote ${file.fixtures.length} fixtures to ${flags.out}${file.fixtures.length === 0 ? ' (no delivery matched; --follow records new ones)' : ''}`,
  );
}

/** Exit codes as `sandbay check`'s: 0 every fixture answered 2xx, 1 one did not, 2 one got no answer at all. */
const replayExitCode = (results: ReplayResult[]) =>
  results.some((r) => r.status === null) ? 2 : results.some((r) => !r.ok) ? 1 : 0;

/**
 * `sandbay replay fixtures.json --to URL --secret S`: sends each fixture again, re-signed with the receiver's secret.
 */
async function replay(
  file: string,
  flags: { to: string; secret: string[]; scheme?: string; json?: boolean; timeout?: string },
): Promise<void> {
  const asked = flags.scheme
    ?.split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  const unknown = asked?.find((s) => !replaySchemes.includes(s as ReplayScheme));
  if (unknown !== undefined)
    throw new CliError(`--scheme takes ${replaySchemes.join(', ')} (or several, comma-separated), not ${unknown}`);
  const results = await replayFixtures(file, {
    url: withScheme(flags.to),
    secret: flags.secret,
    scheme: asked as ReplayScheme[] | undefined,
    timeoutMs: flags.timeout ? Number(flags.timeout) * 1000 : undefined,
  }).catch((err: Error) => {
    throw new CliError(err.message);
  });
  process.exitCode = replayExitCode(results);
  if (flags.json) return printJson(results);
  if (results.length === 0) return say('No fixtures in the file.');
  for (const line of table(
    ['status', 'ms', 'fixture', 'answer'],
    results.map((r) => [
      r.status === null ? 'ERR' : String(r.status),
      String(r.durationMs),
      r.name,
      clip((r.error ?? r.body).replace(/\s+/g, ' '), 60),
    ]),
  ))
    say(line);
  const failed = results.filter((r) => !r.ok).length;
  say(failed === 0 ? `All ${results.length} answered 2xx.` : `${failed} of ${results.length} did not answer 2xx.`);
}

export function fixturesCommands(program: Command): void {
  const fixtures = program
    .command('fixtures')
    .description('recorded deliveries for your own tests (replay them with sandbay replay or replayFixtures)');
  apiCommand(
    fixtures,
    'record',
    'write deliveries to a fixtures file: those in the log matching the filters, or with --follow those made from now on',
  )
    .requiredOption('--out <file>', 'the fixtures file to write, e.g. fixtures.json')
    .option('--topics <patterns>', "comma-separated topic patterns, e.g. 'order.*,payment.captured'")
    .option('--status <status>', 'pending, succeeded or dead')
    .option('--endpoint <id>', 'only this endpoint (whe_…)')
    .option('--limit <n>', 'the newest this many (default 1000)')
    .option('--follow', 'record deliveries made from now on, until Ctrl-C, --count or --for')
    .option('--count <n>', 'with --follow: stop after this many')
    .option('--for <seconds>', 'with --follow: stop after this long')
    .option('--include-checks', "also a receiver check's probes (left out otherwise)")
    .action(record);
  program
    .command('replay <fixtures>')
    .description(
      'send recorded fixtures to a receiver, each re-signed with its secret and a fresh timestamp (exit 0 all 2xx, 1 one was not, 2 no answer)',
    )
    .requiredOption('--to <url>', 'the receiver, e.g. localhost:3000/webhooks')
    .requiredOption(
      '--secret <secret>',
      'the secret the receiver verifies with, whsec_… (repeatable during a rotation); for ed25519 a whsk_… private key',
      (v: string, prev: string[] = []) => [...prev, v],
    )
    .option(
      '--scheme <schemes>',
      `how to sign: ${replaySchemes.join(', ')}, or several comma-separated (default sandbay; standard-webhooks-ed25519 when every --secret is a whsk_… key)`,
    )
    .option('--timeout <seconds>', 'give up on one request after this long (default 10)')
    .option('--json', 'print machine-readable JSON')
    .action(replay);
}
