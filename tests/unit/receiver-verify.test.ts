import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { test } from 'node:test';
import { signatureVectors } from '../helpers/vectors.ts';
import {
  sandbayScheme,
  schemes,
  signTestHeader,
  verifyWebhook,
  WebhookVerificationError,
  type VerificationFailure,
} from '../../src/receiver/index.ts';

const vectors = signatureVectors;

const secret = 'whsec_unit';
const body =
  '{"topic":"order.placed","deliveryId":"dlv_unit","tenantId":"sbx_unit","occurredAt":"2026-01-01T00:00:00Z","data":{"total":10.5}}';
const t = 1_800_000_000;
const sign = (s: string, at: number, raw: string | Buffer) =>
  createHmac('sha256', s).update(`${at}.`).update(raw).digest('hex');
const header = `t=${t},v1=${sign(secret, t, body)}`;

function rejects(reason: VerificationFailure, options: Parameters<typeof verifyWebhook>[0]): void {
  assert.throws(
    () => verifyWebhook(options),
    (err: unknown) => {
      assert.ok(err instanceof WebhookVerificationError, `expected a WebhookVerificationError, got ${err}`);
      assert.equal(err.reason, reason);
      assert.ok(err.message.length > 0);
      return true;
    },
  );
}

test('every reference vector verifies, from a string and from a Buffer, and returns the parsed body', () => {
  for (const c of vectors.cases) {
    const expected = JSON.parse(c.body);
    assert.deepEqual(verifyWebhook({ payload: c.body, header: c.header, secret: c.secret, now: c.t }), expected);
    assert.deepEqual(
      verifyWebhook({ payload: Buffer.from(c.body, 'utf8'), header: c.header, secret: c.secret, now: c.t }),
      expected,
    );
  }
});

test('a rotation header with one v1 per live secret verifies with either secret alone, or both', () => {
  const { secrets, t: at, body: raw, header: h } = vectors.rotation;
  for (const s of [secrets[0], secrets[1], secrets, [...secrets].reverse()]) {
    assert.deepEqual(verifyWebhook({ payload: raw, header: h, secret: s, now: at }), JSON.parse(raw));
  }
  rejects('no_matching_signature', { payload: raw, header: h, secret: 'whsec_neither', now: at });
});

test('several secrets: any one matching verifies', () => {
  assert.equal(
    verifyWebhook({ payload: body, header, secret: ['whsec_other', secret], now: t }).deliveryId,
    'dlv_unit',
  );
});

test('a missing or empty header is no_header', () => {
  for (const h of [undefined, null, '', '   ', []]) rejects('no_header', { payload: body, header: h, secret, now: t });
});

test('a header without a usable t or v1 is malformed_header', () => {
  const v1 = sign(secret, t, body);
  for (const h of ['garbage', `v1=${v1}`, `t=${t}`, `t=abc,v1=${v1}`, `t=-5,v1=${v1}`, `t=${t},v0=${v1}`]) {
    rejects('malformed_header', { payload: body, header: h, secret, now: t });
  }
});

test("Node's joined duplicate headers (string[]) are read as one list", () => {
  assert.ok(verifyWebhook({ payload: body, header: [`t=${t}`, `v1=${sign(secret, t, body)}`], secret, now: t }));
});

test('a wrong secret, a changed body or a truncated signature is no_matching_signature', () => {
  rejects('no_matching_signature', { payload: body, header, secret: 'whsec_wrong', now: t });
  rejects('no_matching_signature', { payload: body.replace('10.5', '10.6'), header, secret, now: t });
  rejects('no_matching_signature', { payload: body, header: header.slice(0, -2), secret, now: t });
  rejects('no_matching_signature', {
    payload: body,
    header: header.toUpperCase().replace('T=', 't=').replace('V1=', 'v1='),
    secret,
    now: t,
  });
});

test('re-serialised JSON fails: the signature covers the raw bytes, not the parsed value', () => {
  const vector = vectors.cases.find((c) => c.body.includes('\n'))!;
  const reserialised = JSON.stringify(JSON.parse(vector.body));
  assert.notEqual(reserialised, vector.body);
  rejects('no_matching_signature', {
    payload: reserialised,
    header: vector.header,
    secret: vector.secret,
    now: vector.t,
  });
  const utf8 = vectors.cases.find((c) => /[^\x00-\x7f]/.test(c.body))!;
  rejects('no_matching_signature', {
    payload: JSON.stringify(JSON.parse(utf8.body), null, 2),
    header: utf8.header,
    secret: utf8.secret,
    now: utf8.t,
  });
});

test('the tolerance holds in both directions, inclusive at the boundary', () => {
  for (const now of [t - 300, t, t + 300]) assert.ok(verifyWebhook({ payload: body, header, secret, now }));
  rejects('timestamp_outside_tolerance', { payload: body, header, secret, now: t + 301 });
  rejects('timestamp_outside_tolerance', { payload: body, header, secret, now: t - 301 });
  assert.ok(verifyWebhook({ payload: body, header, secret, now: t + 10, toleranceSeconds: 10 }));
  rejects('timestamp_outside_tolerance', { payload: body, header, secret, now: t - 11, toleranceSeconds: 10 });
  assert.ok(verifyWebhook({ payload: body, header, secret, now: t + 10 ** 9, toleranceSeconds: Infinity }));
});

test('the message says which way the clock is off', () => {
  assert.throws(() => verifyWebhook({ payload: body, header, secret, now: t + 400 }), /400 s old/);
  assert.throws(() => verifyWebhook({ payload: body, header, secret, now: t - 400 }), /400 s in the future/);
});

test('the default clock is the real one', () => {
  const now = Math.floor(Date.now() / 1000);
  assert.ok(verifyWebhook({ payload: body, header: `t=${now},v1=${sign(secret, now, body)}`, secret }));
  rejects('timestamp_outside_tolerance', { payload: body, header, secret });
});

test('a bad signature is reported before a stale timestamp', () => {
  rejects('no_matching_signature', { payload: body, header, secret: 'whsec_wrong', now: t + 10_000 });
});

test('Buffer payloads are hashed as bytes: a non-UTF-8 byte is not "repaired" into a match', () => {
  const raw = Buffer.concat([Buffer.from('{"a":"'), Buffer.from([0xff]), Buffer.from('"}')]);
  const h = `t=${t},v1=${sign(secret, t, raw)}`;
  assert.ok(verifyWebhook({ payload: raw, header: h, secret, now: t }));
  rejects('no_matching_signature', { payload: raw.toString('utf8'), header: h, secret, now: t });
});

test('programming errors are TypeErrors, not verification failures', () => {
  assert.throws(() => verifyWebhook({ payload: JSON.parse(body), header, secret, now: t }), /raw body/);
  assert.throws(() => verifyWebhook({ payload: body, header, secret: [], now: t }), TypeError);
  assert.throws(() => verifyWebhook({ payload: body, header, secret: '', now: t }), TypeError);
  assert.throws(() => verifyWebhook({ payload: body, header, secret, now: t, toleranceSeconds: -1 }), TypeError);
  assert.throws(() => verifyWebhook({ payload: body, header, secret, now: Number.NaN }), TypeError);
});

function hintOf(options: Parameters<typeof verifyWebhook>[0]): { hint?: string; hintCode?: string; message: string } {
  try {
    verifyWebhook(options);
  } catch (err) {
    assert.ok(err instanceof WebhookVerificationError);
    return { hint: err.hint, hintCode: err.hintCode, message: err.message };
  }
  assert.fail('expected a verification failure');
}

test('the error carries a hint naming the likeliest cause the doctor can tell', () => {
  const turkish = '{"topic":"order.placed","data":{"city":"Kadıköy"}}';
  const turkishHeader = `t=${t},v1=${sign(secret, t, turkish)}`;
  const cases: [string, Parameters<typeof verifyWebhook>[0]][] = [
    ['stripped_prefix', { payload: body, header, secret: secret.slice('whsec_'.length), now: t }],
    ['secret_whitespace', { payload: body, header, secret: `${secret}\n`, now: t }],
    [
      'reserialised_json',
      { payload: JSON.stringify(JSON.parse(turkish), null, 1), header: turkishHeader, secret, now: t },
    ],
    [
      'wrong_encoding',
      { payload: Buffer.from(turkish, 'utf8').toString('latin1'), header: turkishHeader, secret, now: t },
    ],
    ['surrounding_whitespace', { payload: `${body}\n`, header, secret: ['whsec_other', secret], now: t }],
    ['stale_timestamp', { payload: body, header, secret, now: t + 600 }],
    ['future_timestamp', { payload: body, header, secret, now: t - 600 }],
  ];
  for (const [code, options] of cases) {
    const { hint, hintCode, message } = hintOf(options);
    assert.equal(hintCode, code, `${code}: ${message}`);
    assert.ok(hint && message.includes(hint), 'the message carries the hint');
  }
  assert.match(hintOf(cases[0][1]).hint!, /whole whsec_… string/);
});

test('a mismatch no usual mistake explains is put down to a wrong secret, never left without a hint', () => {
  const { hint, hintCode, message } = hintOf({ payload: body, header, secret: 'whsec_wrong', now: t });
  assert.equal(hintCode, 'wrong_secret');
  assert.match(hint!, /^Wrong secret\. No usual mistake .* explains the mismatch\. Use the endpoint's current secret/);
  assert.ok(message.endsWith(`Likely cause: ${hint}`));
});

test("the hint says the fix the Node way, with the frameworks' own for a re-serialised body", () => {
  const turkish = '{"topic":"order.placed","data":{"city":"Kadıköy"}}';
  const { hint } = hintOf({
    payload: JSON.stringify(JSON.parse(turkish), null, 1),
    header: `t=${t},v1=${sign(secret, t, turkish)}`,
    secret,
    now: t,
  });
  assert.match(hint!, /In Node\.js: verify the raw body as a Buffer/);
  assert.match(hint!, /Express: use express\.raw\(\{ type: 'application\/json' \}\)/);
  assert.match(hint!, /Fastify: .*parseAs: 'buffer'/);
  assert.match(hint!, /Next\.js: .*await request\.text\(\)/);
  assert.match(
    hintOf({ payload: body, header, secret: secret.slice('whsec_'.length), now: t }).hint!,
    /In Node\.js: createHmac\('sha256', secret\) with the whole whsec_… string/,
  );
});

test('the request headers can be given whole: a Node headers object, a Fetch Headers or a record, any case', () => {
  const expected = JSON.parse(body);
  assert.deepEqual(
    verifyWebhook({
      payload: body,
      headers: { 'x-service-signature': header, 'content-type': 'application/json' },
      secret,
      now: t,
    }),
    expected,
  );
  assert.deepEqual(
    verifyWebhook({ payload: body, headers: new Headers({ 'X-Service-Signature': header }), secret, now: t }),
    expected,
  );
  assert.deepEqual(
    verifyWebhook({ payload: body, headers: { 'X-SERVICE-SIGNATURE': [header] }, secret, now: t }),
    expected,
  );
  rejects('no_header', { payload: body, headers: { 'content-type': 'application/json' }, secret, now: t });
  rejects('no_matching_signature', { payload: `${body} `, headers: { 'x-service-signature': header }, secret, now: t });
});

test('the sandbay scheme is one small object: its headers, sign, read; signTestHeader signs through it', () => {
  const signed = sandbayScheme.sign({ id: 'dlv_x', timestamp: t, payload: body, secrets: [secret, 'whsec_old'] });
  assert.deepEqual(Object.keys(signed), ['X-Service-Signature']);
  assert.equal(signed['X-Service-Signature'], `t=${t},v1=${sign(secret, t, body)},v1=${sign('whsec_old', t, body)}`);
  assert.deepEqual(sandbayScheme.read({ 'x-service-signature': signed['X-Service-Signature'] }), {
    timestamp: t,
    signatures: [sign(secret, t, body), sign('whsec_old', t, body)],
  });
  assert.equal(sandbayScheme.read({}), 'no_header');
  assert.equal(sandbayScheme.read({ 'x-service-signature': 'garbage' }), 'malformed_header');
  assert.deepEqual(
    schemes.map((s) => s.id),
    ['standard-webhooks', 'standard-webhooks-ed25519', 'sandbay'],
  );
  assert.ok(schemes.includes(sandbayScheme));
  assert.equal(signTestHeader({ payload: body, secret, timestamp: t }), header);
  assert.deepEqual(
    verifyWebhook({ payload: Buffer.from(body), header: signTestHeader({ payload: body, secret }), secret }),
    JSON.parse(body),
  );
});
