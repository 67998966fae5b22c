import assert from 'node:assert/strict';
import { test } from 'node:test';
import { hmacSha256Hex } from '../../src/shared/hmac.ts';
import { createHmac } from 'node:crypto';
import { diagnose, diagnoseSync, type DoctorInput } from '../../src/shared/receiver-doctor.ts';

const secret = 'whsec_doctorSecret0123456789';
const sent = '{"topic":"order.placed","deliveryId":"dlv_1","data":{"city":"Kadıköy","total":12.5}}';
const t = 1_763_805_600;
const header = async (body = sent, key = secret) => `t=${t},v1=${await hmacSha256Hex(key, `${t}.${body}`)}`;

const run = async (overrides: Partial<DoctorInput>) =>
  diagnose({ body: sent, header: await header(), secret, now: t + 5, ...overrides });
const codes = (d: { findings: { code: string }[] }) => d.findings.map((f) => f.code);

test('a correct request verifies', async () => {
  const d = await run({});
  assert.equal(d.verified, true);
  assert.deepEqual(codes(d), ['signature_ok']);
});

test('re-serialised JSON is named, with where the bytes first differ', async () => {
  const pretty = JSON.stringify(JSON.parse(sent), null, 2);
  const d = await run({ body: pretty });
  assert.equal(d.verified, false);
  const f = d.findings.find((x) => x.code === 'reserialised_json');
  assert.ok(f, JSON.stringify(d));
  assert.deepEqual([f.difference?.line, f.difference?.column, f.difference?.byteOffset], [1, 2, 1]);
});

test('CRLF, a BOM and surrounding whitespace are each recognised', async () => {
  const multiline = '{\n  "a": 1\n}';
  const signed = await header(multiline);
  const crlf = await diagnose({ body: multiline.replace(/\n/g, '\r\n'), header: signed, secret, now: t });
  assert.deepEqual(codes(crlf), ['crlf']);
  assert.equal(crlf.findings[0].difference?.line, 1);
  assert.deepEqual(codes(await run({ body: `\uFEFF${sent}` })), ['bom']);
  assert.deepEqual(codes(await run({ body: `${sent}\n` })), ['surrounding_whitespace']);
});

test('Latin-1 mojibake is recognised as the wrong encoding', async () => {
  const mojibake = Array.from(new TextEncoder().encode(sent), (b) => String.fromCharCode(b)).join('');
  assert.deepEqual(codes(await run({ body: mojibake })), ['wrong_encoding']);
});

test('wrong, masked and whitespace-padded secrets', async () => {
  const other = 'whsec_theEndpointsRealSecret00';
  const signedByOther = await header(sent, other);
  const wrong = await diagnose({
    body: sent,
    header: signedByOther,
    secret,
    now: t,
    reference: { rawBody: sent, secrets: [other] },
  });
  assert.deepEqual(codes(wrong), ['wrong_secret']);
  assert.doesNotMatch(wrong.findings[0].detail, new RegExp(other), 'secrets are never shown in full');
  const masked = await run({ secret: 'whsec_••••••••6789' });
  assert.deepEqual(codes(masked), ['masked_secret', 'no_matching_signature']);
  assert.deepEqual(codes(await run({ secret: `${secret}\n` })), ['secret_whitespace']);
});

test('stale and future timestamps fail even with a matching HMAC', async () => {
  const stale = await run({ now: t + 301 });
  assert.equal(stale.verified, false);
  assert.deepEqual(codes(stale), ['stale_timestamp', 'signature_ok']);
  assert.deepEqual(codes(await run({ now: t - 400 })), ['future_timestamp', 'signature_ok']);
});

test('bad headers and an unexplained body get clear findings', async () => {
  assert.deepEqual(codes(await run({ header: '' })), ['no_header']);
  assert.deepEqual(codes(await run({ header: 'v1=abc' })), ['malformed_header']);
  const named = await run({ header: `X-Service-Signature: ${await header()}` });
  assert.deepEqual(codes(named), ['header_name_included', 'signature_ok']);
  const edited = sent.replace('12.5', '99.5');
  const d = await diagnose({
    body: edited,
    header: await header(),
    secret,
    now: t,
    reference: { rawBody: sent, secrets: [secret] },
  });
  assert.deepEqual(codes(d), ['body_differs']);
  assert.equal(d.findings[0].difference?.actual.includes('99'), true);
  assert.deepEqual(codes(await run({ body: edited })), ['no_matching_signature']);
});

test('a secret without its whsec_ prefix is named, alone or with a repaired body', async () => {
  const stripped = secret.slice('whsec_'.length);
  const d = await run({ secret: stripped });
  assert.deepEqual(codes(d), ['stripped_prefix']);
  // What was seen; what to do is the fix every caller adds (fixForFinding's 'key').
  assert.match(d.findings[0].detail, /With whsec_ put back in front of the secret given, the signature matches/);
  const both = await run({ secret: stripped, body: JSON.stringify(JSON.parse(sent), null, 2) });
  assert.deepEqual(codes(both), ['reserialised_json', 'stripped_prefix']);
});

test('diagnoseSync reaches the same diagnosis with node:crypto', async () => {
  const nodeHmac = (key: string, at: number, body: string) =>
    createHmac('sha256', key).update(`${at}.${body}`, 'utf8').digest('hex');
  const inputs: DoctorInput[] = [
    { body: sent, header: await header(), secret, now: t },
    { body: JSON.stringify(JSON.parse(sent), null, 2), header: await header(), secret, now: t },
    { body: sent, header: await header(), secret: secret.slice(6), now: t },
    { body: sent, header: await header(), secret, now: t + 900 },
    { body: sent, header: 'garbage', secret, now: t },
  ];
  for (const input of inputs) assert.deepEqual(diagnoseSync(input, nodeHmac), await diagnose(input));
});
