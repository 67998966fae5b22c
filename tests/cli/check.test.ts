import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { startTestReceiver, type TestReceiver } from '../helpers/check-receivers.ts';
import { assertOneLineFailures, runCli } from '../helpers/cli.ts';
import { createSandbox, useEngine, type TestSandbox } from '../helpers/engine.ts';
import { registerEndpoint } from '../helpers/webhooks.ts';

// Loaded untyped: its typings pull the DOM lib into the whole type-check (and change fetch's types).
const { DOMParser } = (await import('@xmldom/xmldom' as string)) as {
  DOMParser: new (options: object) => { parseFromString(xml: string, type: string): any };
};

const engine = useEngine();
const secret = 'whsec_cliCheckSecret0123456789abcdef';
const dir = mkdtempSync(join(tmpdir(), 'sandbay-check-cli-'));
const receivers: TestReceiver[] = [];
after(async () => {
  for (const r of receivers) await r.close();
  rmSync(dir, { recursive: true, force: true });
});
const as = (sb: TestSandbox) => ['--url', engine.url, '--token', sb.token];
const receiver = async (...flaws: Parameters<typeof startTestReceiver>[1][]) => {
  const r = await startTestReceiver(secret, ...flaws);
  receivers.push(r);
  return r;
};

test('a correct receiver: one ✓ line per case, the score, exit 0', async () => {
  const sb = await createSandbox(engine.url);
  const r = await receiver();
  const result = await runCli(['check', r.url, '--secret', secret, ...as(sb)]);
  assert.equal(result.code, 0, result.stderr + result.stdout);
  const lines = result.stdout.trim().split('\n');
  assert.match(lines[0], /^Checking http:\/\/127\.0\.0\.1:\d+\/hook with 15 cases…$/);
  const caseLines = lines.filter((l) => /^[✓✕!?] /.test(l));
  assert.equal(caseLines.length, 15);
  assert.match(caseLines[0], /^✓ valid\s+a correct delivery of order\.placed → 200 in \d+ ms$/);
  assert.match(caseLines[1], /^✓ tampered-body\s+a correct header, one byte of the body changed → 400 in \d+ ms$/);
  // A loaded machine can make the latency case slow enough to warn; the score line says so either way.
  // Without --effects-url the duplicate passes on its answers alone: not verified, and every report says so.
  assert.match(
    lines.find((l) => l.includes(' duplicate '))!,
    /^\? duplicate .* → 200 in \d+ ms \(not verified: processed once is checked only with an effects URL \(--effects-url\)\)$/,
  );
  assert.match(lines.at(-2)!, /^Score: 15\/15 passed \(1 not verified\), 0 failed, [01] warnings? in \d+\.\d s\.$/);
  assert.equal(lines.at(-1), `Every request is in the inspector: ${engine.url}/sandboxes/${sb.id}/deliveries`);
});

test('a broken receiver: ✕ lines with cause, fix and delivery, exit 1; --json prints exactly the report', async () => {
  const sb = await createSandbox(engine.url);
  const r = await receiver('skips-timestamp');
  const text = await runCli(['check', r.url.replace('http://', ''), '--secret', secret, ...as(sb)]);
  assert.equal(text.code, 1, text.stderr);
  const lines = text.stdout.split('\n');
  const stale = lines.findIndex((l) => l.startsWith('✕ stale-timestamp'));
  assert.match(lines[stale], /signed correctly, t 10 minutes in the past → 200 in \d+ ms \(expected 4xx\)$/);
  assert.match(lines[stale + 1], /^ {4}cause: Accepted a correctly signed request whose t is 10 minutes old/);
  assert.match(
    lines[stale + 2],
    /^ {4}fix: {3}Reject a signature whose t is more than 300 s from now, in both directions/,
  );
  assert.match(lines[stale + 3], new RegExp(`^ {4}see: {3}${engine.url}/sandboxes/${sb.id}/deliveries/dlv_\\w+$`));
  assert.match(text.stdout, /Score: 13\/15 passed \(1 not verified\), 2 failed/);

  const json = await runCli(['check', r.url, '--secret', secret, '--json', ...as(sb)]);
  assert.equal(json.code, 1);
  const report = JSON.parse(json.stdout);
  assert.deepEqual(Object.keys(report), [
    'url',
    'passed',
    'failed',
    'blocked',
    'warnings',
    'durationMs',
    'rootCause',
    'cases',
  ]);
  assert.deepEqual(Object.keys(report.cases[0]), [
    'id',
    'ok',
    'status',
    'blockedBy',
    'warning',
    'verified',
    'expected',
    'got',
    'cause',
    'fix',
    'deliveryIds',
  ]);
  assert.deepEqual(
    report.cases.filter((c: any) => !c.ok).map((c: any) => c.id),
    ['stale-timestamp', 'future-timestamp'],
  );
  assert.deepEqual(
    report.cases.filter((c: any) => !c.verified).map((c: any) => c.id),
    ['duplicate'],
  );
});

test('with --effects-url the duplicate is verified: a ✓ line, verified in the JSON, no skipped testcase', async () => {
  const sb = await createSandbox(engine.url);
  const r = await receiver();
  const file = join(dir, 'effects.xml');
  const json = await runCli([
    'check',
    r.url,
    '--secret',
    secret,
    '--effects-url',
    r.effectsUrl,
    '--json',
    '--junit',
    file,
    ...as(sb),
  ]);
  assert.equal(json.code, 0, json.stderr);
  assert.ok(JSON.parse(json.stdout).cases.every((c: any) => c.verified));
  assert.doesNotMatch(readFileSync(file, 'utf8'), /not verified/);
  const text = await runCli(['check', r.url, '--secret', secret, '--effects-url', r.effectsUrl, ...as(sb)]);
  assert.match(text.stdout, /^✓ duplicate /m);
  assert.match(text.stdout, /Score: 15\/15 passed, 0 failed/);
});

test('--junit writes XML with one testcase per case and the failures marked', async () => {
  const sb = await createSandbox(engine.url);
  const r = await receiver('first-v1-only');
  const file = join(dir, 'check.xml');
  const result = await runCli(['check', r.url, '--secret', secret, '--junit', file, ...as(sb)]);
  assert.equal(result.code, 1);
  const errors: string[] = [];
  const doc = new DOMParser({
    errorHandler: {
      warning: (m: string) => errors.push(m),
      error: (m: string) => errors.push(m),
      fatalError: (m: string) => errors.push(m),
    },
  }).parseFromString(readFileSync(file, 'utf8'), 'text/xml');
  assert.deepEqual(errors, []);
  const suites = doc.getElementsByTagName('testsuites')[0];
  assert.equal(suites.getAttribute('tests'), '15');
  assert.equal(suites.getAttribute('failures'), '1');
  const cases = Array.from(
    { length: doc.getElementsByTagName('testcase').length },
    (_, i) => doc.getElementsByTagName('testcase')[i],
  );
  assert.equal(cases.length, 15);
  assert.equal(cases[0].getAttribute('name'), 'valid');
  const failed = cases.filter((c: any) => c.getElementsByTagName('failure').length > 0);
  assert.deepEqual(
    failed.map((c: any) => c.getAttribute('name')),
    ['rotation'],
  );
  const failure = failed[0].getElementsByTagName('failure')[0];
  assert.match(failure.getAttribute('message')!, /compares only the first v1/);
  assert.match(failure.textContent!, /expected 2xx, got 400\ncause: .*\nfix: .*any v1 matches/);
  const duplicate = cases.find((c: any) => c.getAttribute('name') === 'duplicate');
  assert.equal(
    duplicate.getElementsByTagName('skipped')[0]?.getAttribute('message'),
    'not verified: processed once is checked only with an effects URL (--effects-url)',
  );
  assert.equal(suites.getAttribute('skipped'), '1', 'the unverified duplicate');
});

test('exit 2 when the receiver cannot be reached at all', async () => {
  const sb = await createSandbox(engine.url);
  const result = await runCli(['check', 'http://127.0.0.1:9/hook', '--secret', secret, ...as(sb)]);
  assert.equal(result.code, 2, result.stdout + result.stderr);
  assert.match(result.stdout, /✕ valid .* → connection refused/);
  assert.match(result.stdout, /\n– tampered-body .* → not sent \(not scored: blocked by valid\)\n/);
  assert.match(result.stdout, /Score: 0\/15 passed, 1 failed, 14 not scored/);
});

test('a receiver that refuses every request: the root cause once with its fix, the cases it blocks not scored, exit 1', async () => {
  const sb = await createSandbox(engine.url);
  const r = await receiver('rejects-everything');
  const result = await runCli(['check', r.url, '--secret', secret, ...as(sb)]);
  assert.equal(result.code, 1, result.stderr);
  const lines = result.stdout.trim().split('\n');
  const valid = lines.findIndex((l) => l.startsWith('✕ valid'));
  assert.match(
    lines[valid + 1],
    /^ {4}cause: Your receiver rejects correctly signed deliveries \(400 "rejected"\), in every byte form/,
  );
  assert.match(lines[valid + 2], /^ {4}fix: {3}Use the endpoint's current secret/);
  assert.equal(lines.filter((l) => /^ {4}fix:/.test(l)).length, 1, 'one fix, for the one cause');
  assert.deepEqual(
    lines.filter((l) => /^✓ /.test(l)),
    [],
    'no refusal counts as a pass: not latency, not redirect',
  );
  assert.equal(lines.filter((l) => /^– \S+ .* → 400 in \d+ ms \(not scored: blocked by valid\)$/.test(l)).length, 14);
  assert.match(lines.at(-4)!, /^Root cause \(valid, fix above\): Your receiver rejects correctly signed deliveries/);
  assert.match(
    lines.at(-3)!,
    /^ {4}blocks: tampered-body, wrong-secret, .*, redirect \(not scored until valid passes\)$/,
  );
  assert.match(lines.at(-2)!, /^Score: 0\/15 passed, 1 failed, 14 not scored, 0 warnings in/);
});

test('--junit: the cases a failed valid blocks are skipped with a short message naming valid; the cause is written once, on valid', async () => {
  const sb = await createSandbox(engine.url);
  const r = await receiver('strips-prefix');
  const file = join(dir, 'blocked.xml');
  const result = await runCli(['check', r.url, '--secret', secret, '--junit', file, ...as(sb)]);
  assert.equal(result.code, 1);
  const doc = new DOMParser({}).parseFromString(readFileSync(file, 'utf8'), 'text/xml');
  const suites = doc.getElementsByTagName('testsuites')[0];
  assert.equal(suites.getAttribute('failures'), '1');
  assert.equal(suites.getAttribute('skipped'), '14');
  const cases = Array.from(
    { length: doc.getElementsByTagName('testcase').length },
    (_, i) => doc.getElementsByTagName('testcase')[i],
  );
  const skipped = cases.filter((c: any) => c.getElementsByTagName('skipped').length > 0);
  assert.equal(skipped.length, 14);
  for (const c of skipped) {
    assert.equal(
      c.getElementsByTagName('skipped')[0].getAttribute('message'),
      'not scored: blocked by valid, which failed (its failure has the cause and fix)',
    );
  }
  const failed = cases.filter((c: any) => c.getElementsByTagName('failure').length > 0);
  assert.equal(failed.map((c: any) => c.getAttribute('name')).join(), 'valid');
  // The root cause once, on valid, with the cases it blocks: not repeated in every skipped case.
  assert.match(
    failed[0].getElementsByTagName('failure')[0].getAttribute('message'),
    /^Your receiver rejects .* without its whsec_ prefix/,
  );
  assert.match(
    failed[0].textContent,
    /\nblocks: tampered-body, wrong-secret, .*, redirect \(not scored until valid passes\)\n/,
  );
  assert.equal(
    readFileSync(file, 'utf8').split('without its whsec_ prefix').length - 1,
    2,
    'the cause appears in the failure message and its text, and nowhere else',
  );
});

test("--endpoint uses the endpoint's URL and secret; a wrong use of the flags is a one-line error", async () => {
  const sb = await createSandbox(engine.url);
  const endpoint = await registerEndpoint(sb, 'http://127.0.0.1:9/hook', ['*']);
  const r = await startTestReceiver(endpoint.secret);
  receivers.push(r);
  await sb.api(`/api/v1/webhooks/endpoints/${endpoint.id}`, { method: 'PATCH', body: { url: r.url } });
  const result = await runCli(['check', '--endpoint', endpoint.id, ...as(sb)]);
  assert.equal(result.code, 0, result.stdout + result.stderr);
  assert.match(result.stdout, new RegExp(`^Checking ${r.url} \\(endpoint ${endpoint.id}\\) with 15 cases…`));
  await assertOneLineFailures([
    [['check', ...as(sb)], /give the receiver URL, or --endpoint/],
    [['check', r.url, '--endpoint', endpoint.id, ...as(sb)], /not both/],
    [['check', '--endpoint', 'whe_nope', ...as(sb)], /not_found/],
  ]);
});
