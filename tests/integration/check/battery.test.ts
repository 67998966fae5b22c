// The receiver check's battery against receivers written for it: a correct one passes every
// case, and each broken one fails exactly the cases its mistake should, with the cause named.
import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { startTestReceiver, type Flaw, type TestReceiver } from '../../helpers/check-receivers.ts';
import { createSandbox, useEngine, type TestSandbox } from '../../helpers/engine.ts';
import { independentlyVerify } from '../../helpers/receiver.ts';
import { blockedCases, caseOf, failedCases, passedCases, rejectionCases, runCheck } from './helpers.ts';

const engine = useEngine();
const secret = 'whsec_batteryTestSecret0123456789ab';
const caseIds = [
  'valid',
  'tampered-body',
  'wrong-secret',
  'stale-timestamp',
  'future-timestamp',
  'missing-signature',
  'malformed-signature',
  'rotation',
  'duplicate',
  'out-of-order',
  'unknown-topic',
  'utf8-body',
  'large-body',
  'latency',
  'redirect',
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
  assert.deepEqual(Object.keys(run.report).sort(), [
    'blocked',
    'cases',
    'durationMs',
    'failed',
    'passed',
    'rootCause',
    'url',
    'warnings',
  ]);
  assert.equal(run.report.rootCause, null);
  assert.equal(run.report.blocked, 0);
  assert.deepEqual(
    run.report.cases.map((c: any) => c.id),
    caseIds,
  );
  assert.deepEqual(failedCases(run), [], JSON.stringify(run.report.cases.filter((c: any) => !c.ok)));
  assert.equal(run.report.passed, 15);
  assert.equal(run.report.failed, 0);
  assert.equal(run.report.url, r.url);
  for (const c of run.report.cases) {
    assert.deepEqual(Object.keys(c).sort(), [
      'blockedBy',
      'cause',
      'deliveryIds',
      'expected',
      'fix',
      'got',
      'id',
      'ok',
      'status',
      'verified',
      'warning',
    ]);
    assert.equal(c.status, 'passed');
    assert.equal(c.blockedBy, null);
    assert.deepEqual(Object.keys(c.got).sort(), ['error', 'ms', 'status']);
    assert.equal(c.cause, '');
    assert.equal(c.fix, '');
    assert.ok(c.deliveryIds.length > 0, c.id);
  }
  assert.equal(caseOf(run, 'duplicate').expected, '2xx both times, processed once');
  assert.equal(
    r.processed,
    9,
    'valid, rotation, the duplicate once, both of out-of-order, utf8-body, large-body, latency, redirect',
  );
});

test("each request is a delivery with trigger check, signed like production and opened with its case's bytes", async () => {
  const r = await receiver();
  const run = await runCheck(sb, { url: r.url, secret });
  const delivery = async (id: string) =>
    (await sb.api(`/api/v1/webhooks/deliveries/${caseOf(run, id).deliveryIds[0]}`)).body;
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
  assert.equal(
    independentlyVerify(tampered.attempts[0].signatureHeader, tampered.rawBody, secret),
    false,
    'the body sent is not the body signed',
  );
  assert.equal((await delivery('missing-signature')).attempts[0].signatureHeader, '');
  const malformed = await Promise.all(
    caseOf(run, 'malformed-signature').deliveryIds.map(
      async (id: string) => (await sb.api(`/api/v1/webhooks/deliveries/${id}`)).body,
    ),
  );
  assert.deepEqual(
    malformed.map((d) => d.attempts[0].signatureHeader),
    ['garbage', 't=abc,v1='],
  );
  assert.equal((await delivery('rotation')).attempts[0].signatureHeader.match(/v1=/g)?.length, 2);

  const duplicate = caseOf(run, 'duplicate');
  assert.equal(duplicate.deliveryIds.length, 1, 'the same delivery, twice');
  const twice = await delivery('duplicate');
  assert.deepEqual(
    twice.attempts.map((a: any) => [a.number, a.trigger]),
    [
      [1, 'check'],
      [2, 'check'],
    ],
  );
  const ordered = await Promise.all(
    caseOf(run, 'out-of-order').deliveryIds.map(
      async (id: string) => (await sb.api(`/api/v1/webhooks/deliveries/${id}`)).body,
    ),
  );
  assert.deepEqual(
    ordered.map((d) => d.topic),
    ['order.cancelled', 'order.placed'],
  );
  assert.equal(ordered[0].envelope.data.orderId, ordered[1].envelope.data.orderId);

  assert.equal((await delivery('valid')).attempts[0].url, r.url);
  assert.equal(
    (await delivery('redirect')).attempts[0].url,
    `${r.url}/`,
    'redirect is sent to the other form of the URL',
  );

  const utf8 = await delivery('utf8-body');
  assert.match(utf8.rawBody, /İ ı ğ ü ş ö ç/);
  assert.match(utf8.rawBody, /^\{\n {2}"topic"/, 'pretty-printed');
  assert.match(utf8.rawBody, /\}\n$/, 'ending with a newline, as pretty printers write it');
  assert.equal(Buffer.byteLength((await delivery('large-body')).rawBody), 1024 * 1024);
  assert.deepEqual(
    await Promise.all(
      caseOf(run, 'unknown-topic').deliveryIds.map(
        async (id: string) => (await sb.api(`/api/v1/webhooks/deliveries/${id}`)).body.topic,
      ),
    ),
    ['x.unknown'],
  );
});

// Mistakes that leave valid passing: exactly these cases fail, each naming the cause and its fix.
const broken: [Flaw, string[], RegExp, RegExp?][] = [
  [
    'reserialises-json',
    ['utf8-body'],
    /parses the JSON and serialises it again before verifying .* JavaScript's JSON\.stringify/,
    /In Node\.js: verify the raw body as a Buffer/,
  ],
  [
    'skips-timestamp',
    ['stale-timestamp', 'future-timestamp'],
    /timestamp is not checked|only old timestamps are refused/,
  ],
  ['first-v1-only', ['rotation'], /compares only the first v1/],
  ['fails-unknown-topic', ['unknown-topic'], /Answered 500 .* to x\.unknown, a topic it does not handle/],
  ['processes-duplicates', ['duplicate'], /processed twice: the effects count went from \d+ to \d+/],
  [
    'latin1-body',
    ['utf8-body'],
    /decodes the body with the wrong character set \(Latin-1\)/,
    /In Node\.js: keep the body a Buffer/,
  ],
  [
    'trims-body',
    ['utf8-body'],
    /accepted the same body without its trailing newline: it trims the body before verifying/,
  ],
  [
    'reads-first-64k',
    ['large-body'],
    /accepted a 64 KiB one, without a 413: it verifies only part of a large body/,
    /every chunk/,
  ],
  ['limit-100kb', ['large-body'], /Rejected a valid 1 MiB body \(413 .*\): its body-size limit is too low/],
  [
    'redirects-other-slash',
    ['redirect'],
    /^Answered 308, a redirect to \/hook, to a correct delivery sent to http:\/\/127\.0\.0\.1:\d+\/hook\/: Sandbay never follows a redirect/,
    /both forms of its path/,
  ],
];

for (const [flaw, expected, cause, fix] of broken) {
  test(`a receiver that ${flaw.replace(/-/g, ' ')} fails exactly ${expected.join(', ')}, and the report names the cause`, async () => {
    const r = await receiver(flaw);
    const run = await runCheck(sb, { url: r.url, secret, effectsUrl: r.effectsUrl });
    assert.deepEqual(failedCases(run), expected);
    assert.deepEqual(blockedCases(run), []);
    assert.equal(run.report.rootCause, null, 'valid passed: nothing is blocked');
    for (const id of expected) {
      const c = caseOf(run, id);
      assert.match(c.cause, cause, `${id}: ${c.cause}`);
      assert.ok(c.fix.length > 20, `${id} says how to fix it`);
      if (fix) assert.match(c.fix, fix, `${id}: ${c.fix}`);
    }
    assert.equal(run.report.failed, expected.length);
  });
}

// Mistakes that make valid fail: valid is the root cause, and no case scores by refusing a request.
const rootCauses: [Flaw[], RegExp, RegExp][] = [
  [
    ['strips-prefix'],
    /it keys the HMAC with the secret without its whsec_ prefix — it accepted the same delivery signed that way/,
    /whole whsec_… string/,
  ],
  [['decodes-key'], /it keys the HMAC with the base64-decoded part of the secret after whsec_/, /whole whsec_… string/],
  [
    ['rejects-everything'],
    /in every byte form and with every usual reading of the secret .*: it rejects every request/,
    /current secret/,
  ],
  [
    ['fails-everything'],
    /answers 500 "database is locked" to correctly signed deliveries, whatever their byte form or key/,
    /log/,
  ],
  [['redirects'], /303, a redirect to \/thanks: Sandbay never follows redirects/, /final URL/],
  [['secret-with-newline', 'echoes'], /its Sandbay-Echo shows its secret ends with a newline/, /whole whsec_… string/],
];

for (const [flaws, cause, fix] of rootCauses) {
  test(`a receiver that ${flaws.join(' and ').replace(/-/g, ' ')}: valid is the root cause, every case it blocks is not scored, nothing passes by refusing`, async () => {
    const r = await receiver(...flaws);
    const run = await runCheck(sb, { url: r.url, secret, effectsUrl: r.effectsUrl });
    assert.deepEqual(
      failedCases(run),
      ['valid'],
      JSON.stringify(run.report.cases.filter((c: any) => c.status === 'failed')),
    );
    const valid = caseOf(run, 'valid');
    assert.match(valid.cause, cause);
    assert.match(valid.fix, fix);
    const passed = passedCases(run);
    assert.deepEqual(
      passed.filter((id) => rejectionCases.includes(id) || id === 'latency' || id === 'redirect'),
      [],
      'no refusal scores while valid fails',
    );
    assert.deepEqual(
      blockedCases(run),
      run.report.cases.map((c: any) => c.id).filter((id: string) => id !== 'valid' && !passed.includes(id)),
    );
    assert.deepEqual(run.report.rootCause, { caseId: 'valid', cause: valid.cause, blocks: blockedCases(run) });
    assert.equal(run.report.blocked, blockedCases(run).length);
    assert.equal(run.report.failed, 1);
    for (const id of blockedCases(run)) {
      const c = caseOf(run, id);
      assert.equal(c.blockedBy, 'valid');
      assert.equal(c.fix, '', `${id}: the fix is given once, on valid`);
      assert.match(c.cause, /^Not scored: blocked by valid/);
    }
  });
}

test('a receiver that refuses everything: the probes that tell causes apart are deliveries of valid, each a different byte form or key', async () => {
  const r = await receiver('rejects-everything');
  const run = await runCheck(sb, { url: r.url, secret });
  const valid = caseOf(run, 'valid');
  assert.equal(valid.deliveryIds.length, 1 + 2 + 7, 'the delivery, two readings of the secret, seven serialiser forms');
  const bodies = await Promise.all(
    valid.deliveryIds.map(async (id: string) => (await sb.api(`/api/v1/webhooks/deliveries/${id}`)).body.rawBody),
  );
  const forms = bodies.slice(3);
  assert.equal(new Set(forms).size, 7, 'seven different byte forms');
  assert.ok(
    forms.every((b: string) => JSON.parse(b).data.note === 'İstanbul/Kadıköy <b>&</b>'),
    'of the same event',
  );
  assert.ok(
    forms.some((b: string) => b.includes('", "')),
    "Python's separators",
  );
  assert.ok(
    forms.some((b: string) => b.includes('\\/')),
    "PHP's escaped slash",
  );
  assert.ok(
    forms.some((b: string) => b.includes('\\u003c')),
    "Go's and Rails' escaped <",
  );
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
