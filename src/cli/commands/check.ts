import { writeFileSync } from 'node:fs';
import type { Command } from 'commander';
import type { CheckCaseInfo } from '../../shared/api-types.ts';
import {
  checkExitCode,
  notVerified,
  type CheckCaseResult,
  type CheckReport,
  type CheckRun,
} from '../../shared/check-report.ts';
import { sandboxClient, type Client, type ConnectionFlags } from '../client.ts';
import { CliError } from '../errors.ts';
import { junitXml } from '../junit.ts';
import { apiCommand, withScheme } from '../options.ts';
import { printJson, say, signedWith } from '../output.ts';

interface CheckFlags extends ConnectionFlags {
  secret?: string;
  signature?: string;
  endpoint?: string;
  effectsUrl?: string;
  junit?: string;
  insecure?: boolean;
}

const pollMs = 25;

/** `sandbay check <url> --secret whsec_… | --endpoint whe_…`: the receiver check (SPEC §10), run by the engine. */
export function checkCommand(program: Command): void {
  apiCommand(
    program,
    'check [url]',
    'test your webhook receiver with a scored battery of signed requests (exit 0 all pass, 1 a case failed, 2 unreachable)',
  )
    .option(
      '--secret <secret>',
      "the whsec_… secret your receiver verifies with (default: the sandbox's webhook test secret)",
    )
    .option(
      '--signature <scheme>',
      'with a URL, sign as sandbay (default) or standard-webhooks; an endpoint signs in its own schemes',
    )
    .option('--endpoint <id>', 'a registered endpoint (whe_…): its URL, live secrets and signing schemes')
    .option(
      '--effects-url <url>',
      'GET answering your receiver\'s count of processed events (a number or {"count": n}): the duplicate case checks it rose by one',
    )
    .option('--junit <file>', 'also write JUnit XML, one testcase per case, for CI')
    .option('--insecure', 'accept a self-signed certificate on an https receiver')
    .action(check);
}

async function check(url: string | undefined, flags: CheckFlags): Promise<void> {
  if (!url === !flags.endpoint)
    throw new CliError('give the receiver URL, or --endpoint whe_… for a registered endpoint (not both)');
  if (flags.endpoint && (flags.secret || flags.insecure || flags.signature))
    throw new CliError(
      "--endpoint uses the endpoint's own secrets, schemes and TLS setting; drop --secret/--signature/--insecure",
    );
  if (flags.signature !== undefined && flags.signature !== 'sandbay' && flags.signature !== 'standard-webhooks') {
    throw new CliError(
      `--signature takes sandbay or standard-webhooks, not ${flags.signature}${flags.signature === 'standard-webhooks-ed25519' ? ' (ed25519 needs a key pair: register an endpoint with it and check --endpoint)' : ''}`,
    );
  }
  const client = await sandboxClient(flags);
  const effectsUrl = flags.effectsUrl ? withScheme(flags.effectsUrl) : undefined;
  const started = flags.endpoint
    ? await client.request<CheckRun>(
        'POST',
        `/api/v1/webhooks/endpoints/${encodeURIComponent(flags.endpoint)}/checks`,
        { body: { effectsUrl } },
      )
    : await client.request<CheckRun>('POST', '/api/v1/webhooks/checks', {
        body: {
          url: withScheme(url!),
          secret: flags.secret,
          signature: flags.signature,
          effectsUrl,
          allowInsecureTls: flags.insecure || undefined,
        },
      });
  const [cases, sandbox] = await Promise.all([
    client.request<{ data: CheckCaseInfo[] }>(
      'GET',
      `/api/v1/webhooks/check-cases?signature=${encodeURIComponent(started.signature.includes('sandbay') ? 'sandbay' : started.signature[0])}`,
    ),
    client.request<{ id: string }>('GET', '/api/v1/sandbox'),
  ]);
  const link = (deliveryId: string) => `${client.url}/sandboxes/${sandbox.id}/deliveries/${deliveryId}`;
  const signed = signedWith(started.signature);
  if (!flags.json)
    say(
      `Checking ${started.url}${flags.endpoint ? ` (endpoint ${flags.endpoint})` : ''}${signed} with ${started.total} cases…`,
    );
  const run = await follow(client, started, (c) => flags.json || printCase(c, cases.data, link));
  if (flags.junit) writeJunit(flags.junit, junitXml(run.report, link));
  if (flags.json) printJson(run.report);
  else {
    printRootCause(run.report);
    printScore(run, client.url, sandbox.id);
  }
  process.exitCode = checkExitCode(run.report);
}

/** Polls the run, handing over each case as it completes. */
async function follow(client: Client, run: CheckRun, onCase: (c: CheckCaseResult) => unknown): Promise<CheckRun> {
  let shown = 0;
  for (let current = run; ;) {
    for (const c of current.report.cases.slice(shown)) onCase(c);
    shown = current.report.cases.length;
    if (current.status !== 'running') return current;
    await new Promise((resolve) => setTimeout(resolve, pollMs));
    current = await client.request<CheckRun>('GET', `/api/v1/webhooks/checks/${encodeURIComponent(run.id)}`);
  }
}

const answer = (c: CheckCaseResult) =>
  c.got.status === null ? (c.got.error ?? 'no answer') : `${c.got.status} in ${c.got.ms} ms`;
const marks = { passed: '✓', failed: '✕', blocked: '–' } as const;

function printCase(c: CheckCaseResult, cases: CheckCaseInfo[], link: (id: string) => string): void {
  const sends = cases.find((x) => x.id === c.id)?.sends ?? '';
  const unverified = c.status === 'passed' && !c.verified;
  const mark = unverified ? '?' : c.warning ? '!' : marks[c.status];
  const got = c.status === 'blocked' && c.got.status === null ? 'not sent' : answer(c);
  const note =
    c.status === 'blocked'
      ? ` (not scored: blocked by ${c.blockedBy})`
      : c.status === 'failed'
        ? ` (expected ${c.expected})`
        : unverified
          ? ` (not verified: ${notVerified(c)})`
          : '';
  say(`${mark} ${c.id.padEnd(19)} ${sends} → ${got}${note}${c.warning ? ` — slow: answer within 2 s` : ''}`);
  if (c.status !== 'failed') return;
  say(`    cause: ${c.cause}`);
  say(`    fix:   ${c.fix}`);
  if (c.deliveryIds[0]) say(`    see:   ${link(c.deliveryIds[0])}`);
}

/** The headline: the one cause to fix first, and the cases it blocks (its fix was printed with it, once). */
function printRootCause(report: CheckReport): void {
  const { rootCause } = report;
  if (!rootCause) return;
  say(`Root cause (${rootCause.caseId}, fix above): ${rootCause.cause}`);
  if (rootCause.blocks.length)
    say(`    blocks: ${rootCause.blocks.join(', ')} (not scored until ${rootCause.caseId} passes)`);
}

function printScore(run: CheckRun, url: string, sandboxId: string): void {
  const { passed, failed, blocked, warnings, durationMs, cases } = run.report;
  const status = run.status === 'interrupted' ? ' (interrupted: the engine stopped)' : '';
  const notScored = blocked ? `, ${blocked} not scored` : '';
  const unverified = cases.filter((c) => c.status === 'passed' && !c.verified).length;
  const notChecked = unverified ? ` (${unverified} not verified)` : '';
  say(
    `Score: ${passed}/${cases.length} passed${notChecked}, ${failed} failed${notScored}, ${warnings} warning${warnings === 1 ? '' : 's'} in ${(durationMs / 1000).toFixed(1)} s${status}.`,
  );
  say(`Every request is in the inspector: ${url}/sandboxes/${sandboxId}/deliveries`);
}

function writeJunit(file: string, xml: string): void {
  try {
    writeFileSync(file, xml);
  } catch (err) {
    throw new CliError(`cannot write ${file}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
  }
}
