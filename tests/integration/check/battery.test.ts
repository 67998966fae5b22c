// The receiver check's battery against receivers written for it: a correct one passes every
// case, and each broken one fails exactly the cases its mistake should, with the cause named.
import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { startTestReceiver, type Flaw, type TestReceiver } from '../../helpers/check-receivers.ts';
import { createSandbox, useEngine, type TestSandbox } from '../../helpers/engine.ts';
import { independentlyVerify } from '../../helpers/receiver.ts';
import { caseOf, failedCases, runCheck } from './helpers.ts';

const engine = useEngine();
const secret = 'whsec_batteryTestSecret0123456789ab';
const caseIds = [
  'valid', 'tampered-body', 'wrong-secret', 'stale-timestamp', 'future-timestamp', 'missing-signature', 'malformed-signature',
  'rotation', 'duplicate', 'out-of-order', 'unknown-topic', 'utf8-body', 'large-body', 'latency', 'redirect',
];
let sandbox: Promise<TestSandbox> | undefined;
const receivers: TestReceiver[] = [];
after(async () => {
  for (const r of receivers) await r.close();
});

// One sandbox for the file: the checks are independent runs in its log.
let sb: TestSandbox;
async function receiver(...flaws: Flaw[]): Promise<TestReceiver> {
  sb = await (sandbox ??= createSandbox(engine.url));
  const r = await startTestReceiver(secret, ...flaws);
  receivers.push(r);
  return r;
}

test('a correct receiver passes the whole battery; the report has exactly the documented shape', async () => {
  const r = await receiver();
  const run = await runCheck(sb, { url: r.url, secret, effectsUrl: r.effectsUrl });
  assert.equal(run.status, 'finished');
  assert.deepEqual(Object.keys(run.report).sort(), ['cases', 'durationMs', 'failed', 'passed', 'url', 'warnings']);
  assert.deepEqual(run.report.cases.map((c: any) => c.id), caseIds);
  assert.deepEqual(failedCases(run), [], JSON.stringify(run.report.cases.filter((c: any) => !c.ok)));
  assert.equal(run.report.passed, 15);
  assert.equal(run.report.failed, 0);
  assert.equal(run.report.url, r.url);
  for (const c of run.report.cases) {
    assert.deepEqual(Object.keys(c).sort(), ['cause', 'deliveryIds', 'expected', 'fix', 'got', 'id', 'ok', 'warning']);
    assert.deepEqual(Object.keys(c.got).sort(), ['error', 'ms', 'status']);
    assert.equal(c.cause, '');
    assert.equal(c.fix, '');
    assert.ok(c.deliveryIds.length > 0, c.id);
  }
  assert.equal(caseOf(run, 'duplicate').expected, '2xx both times, processed once');
  assert.equal(r.processed, 9, 'valid, rotation, the duplicate once, both of out-of-order, utf8-body, large-body, latency, redirect');
});

test("each request is a delivery with trigger check, signed like production and opened with its case's bytes", async () => {
  const r = await receiver();
  const run = await runCheck(sb, { url: r.url, secret });
  const delivery = async (id: string) => (await sb.api(`/api/v1/webhooks/deliveries/${caseOf(run, id).deliveryIds[0]}`)).body;
  const valid = await delivery('valid');
  assert.equal(valid.check.id, run.id);
  assert.equal(valid.check.case, 'valid');
  assert.equal(valid.status, 'succeeded');
  assert.equal(valid.topic, 'order.placed');
  assert.deepEqual(Object.keys(valid.envelope), ['topic', 'deliveryId', 'tenantId', 'occurredAt', 'data']);
  assert.equal(valid.envelope.deliveryId, valid.id);
  assert.match(valid.envelope.data.orderId, /^ord_/);
  assert.equal(valid.attempts.length, 1);
  assert.equal(valid.attempts[0].trigger, 'check');
  assert.ok(independentlyVerify(valid.attempts[0].signatureHeader, valid.rawBody, secret));
  assert.doesNotMatch(valid.rawBody, /[^\x00-\x7f]/, 'plain ASCII bytes');

  const tampered = await delivery('tampered-body');
  assert.equal(tampered.status, 'dead');
  assert.equal(tampered.attempts[0].responseStatus, 400);
  assert.equal(independentlyVerify(tampered.attempts[0].signatureHeader, tampered.rawBody, secret), false, 'the body sent is not the body signed');
  assert.equal((await delivery('missing-signature')).attempts[0].signatureHeader, '');
  const malformed = await Promise.all(caseOf(run, 'malformed-signature').deliveryIds.map(async (id: string) => (await sb.api(`/api/v1/webhooks/deliveries/${id}`)).body));
  assert.deepEqual(malformed.map((d) => d.attempts[0].signatureHeader), ['garbage', 't=abc,v1=']);
  assert.equal((await delivery('rotation')).attempts[0].signatureHeader.match(/v1=/g)?.length, 2);

  const duplicate = caseOf(run, 'duplicate');
  assert.equal(duplicate.deliveryIds.length, 1, 'the same delivery, twice');
  const twice = await delivery('duplicate');
  assert.deepEqual(twice.attempts.map((a: any) => [a.number, a.trigger]), [[1, 'check'], [2, 'check']]);
  const ordered = await Promise.all(caseOf(run, 'out-of-order').deliveryIds.map(async (id: string) => (await sb.api(`/api/v1/webhooks/deliveries/${id}`)).body));
  assert.deepEqual(ordered.map((d) => d.topic), ['order.cancelled', 'order.placed']);
  assert.equal(ordered[0].envelope.data.orderId, ordered[1].envelope.data.orderId);

  const utf8 = await delivery('utf8-body');
  assert.match(utf8.rawBody, /İ ı ğ ü ş ö ç/);
  assert.match(utf8.rawBody, /^\{\n {2}"topic"/, 'pretty-printed');
  assert.equal(Buffer.byteLength((await delivery('large-body')).rawBody), 1024 * 1024);
  assert.deepEqual((await Promise.all(caseOf(run, 'unknown-topic').deliveryIds.map(async (id: string) => (await sb.api(`/api/v1/webhooks/deliveries/${id}`)).body.topic))), ['x.unknown']);
});

const broken: [Flaw, string[], RegExp][] = [
  ['reserialises-json', ['utf8-body'], /parsed and serialised again/],
  ['skips-timestamp', ['stale-timestamp', 'future-timestamp'], /timestamp is not checked|only old timestamps are refused/],
  ['first-v1-only', ['rotation'], /compares only the first v1/],
  ['fails-unknown-topic', ['unknown-topic'], /Answered 500 .* to x\.unknown, a topic it does not handle/],
  ['processes-duplicates', ['duplicate'], /processed twice: the effects count went from \d+ to \d+/],
  ['latin1-body', ['utf8-body'], /decoded with the wrong character set/],
  ['redirects', ['valid', 'rotation', 'duplicate', 'out-of-order', 'unknown-topic', 'utf8-body', 'large-body', 'redirect'], /303, a redirect to \/thanks: Sandbay never follows redirects/],
];

for (const [flaw, expected, cause] of broken) {
  test(`a receiver that ${flaw.replace(/-/g, ' ')} fails exactly ${expected.join(', ')}, and the report names the cause`, async () => {
    const r = await receiver(flaw);
    const run = await runCheck(sb, { url: r.url, secret, effectsUrl: r.effectsUrl });
    assert.deepEqual(failedCases(run), expected);
    for (const id of expected) {
      const c = caseOf(run, id);
      assert.match(c.cause, cause, `${id}: ${c.cause}`);
      assert.ok(c.fix.length > 20, `${id} says how to fix it`);
    }
    assert.equal(run.report.failed, expected.length);
  });
}

test('a receiver using the secret without its whsec_ prefix: valid names the stripped prefix, and the cases it drags down say so', async () => {
  const r = await receiver('strips-prefix');
  const run = await runCheck(sb, { url: r.url, secret });
  const valid = caseOf(run, 'valid');
  assert.match(valid.cause, /accepted one signed with the secret without its whsec_ prefix: The secret lost its whsec_ prefix/);
  assert.match(valid.fix, /whole whsec_… string/);
  assert.ok(valid.deliveryIds.length >= 2, 'the probe is a recorded delivery too');
  assert.match(caseOf(run, 'rotation').cause, /^Rejected \(400\) like the correct delivery of the valid case/);
  assert.deepEqual(failedCases(run).filter((id) => !['valid', 'rotation', 'duplicate', 'out-of-order', 'unknown-topic', 'utf8-body', 'large-body'].includes(id)), []);
});

test('without an effects URL the duplicate only checks both answers, and says so', async () => {
  const r = await receiver('processes-duplicates');
  const run = await runCheck(sb, { url: r.url, secret });
  assert.deepEqual(failedCases(run), []);
  assert.match(caseOf(run, 'duplicate').expected, /not checked without an effects URL/);
});

test('an effects URL that does not answer a count fails the duplicate with that named', async () => {
  const r = await receiver();
  const run = await runCheck(sb, { url: r.url, secret, effectsUrl: r.url.replace('/hook', '/nothing') });
  assert.deepEqual(failedCases(run), ['duplicate']);
  assert.match(caseOf(run, 'duplicate').cause, /Could not read the effects URL/);
});
