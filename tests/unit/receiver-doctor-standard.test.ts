// The receiver doctor with Standard Webhooks (SPEC §11): the headers pasted as lines, v1 with the
// secret, v1a with the public key; the same mistakes named as for Sandbay's scheme, and the key of
// the wrong kind. Signatures made by the official library and node:crypto.
import assert from 'node:assert/strict';
import { sign as ed25519Sign } from 'node:crypto';
import { test } from 'node:test';
import { Webhook } from 'standardwebhooks';
import { verifyWebhook, WebhookVerificationError } from '../../src/receiver/index.ts';
import { diagnose, type DoctorInput } from '../../src/shared/receiver-doctor.ts';
import { vectorKeyPair } from '../helpers/ed25519.ts';

const sent = '{"type":"order.placed","timestamp":"2026-01-01T00:00:00.000Z","data":{"city":"Kadıköy","total":12.5}}';
const secret = `whsec_${Buffer.alloc(32, 5).toString('base64')}`;
const { publicKey, privateKey } = vectorKeyPair;
const t = 1_763_805_600;
const id = 'dlv_doc';
const v1 = (s = secret, body = sent) => new Webhook(s).sign(id, new Date(t * 1000), body);
const v1a = (body = sent) =>
  `v1a,${ed25519Sign(null, Buffer.from(`${id}.${t}.${body}`), privateKey).toString('base64')}`;
const lines = (signature: string) => `webhook-id: ${id}\nwebhook-timestamp: ${t}\nwebhook-signature: ${signature}`;
const run = (overrides: Partial<DoctorInput>) =>
  diagnose({ body: sent, header: lines(v1()), secret, now: t + 5, ...overrides });
const codes = (d: { findings: { code: string }[] }) => d.findings.map((f) => f.code);

test('a correct Standard Webhooks request verifies, with the secret (v1) or the public key (v1a)', async () => {
  assert.deepEqual(codes(await run({})), ['signature_ok']);
  assert.equal((await run({})).verified, true);
  assert.deepEqual(codes(await run({ header: lines(`${v1()} ${v1a()}`), secret: publicKey })), ['signature_ok']);
  assert.deepEqual(
    codes(await run({ header: `Webhook-Id: ${id}\r\nWEBHOOK-TIMESTAMP: ${t}\r\nwebhook-signature: ${v1()}` })),
    ['signature_ok'],
    'any case, CRLF lines',
  );
});

test("the body mistakes are named as for Sandbay's scheme: re-serialised JSON, CRLF, a BOM, Latin-1", async () => {
  assert.deepEqual(codes(await run({ body: JSON.stringify(JSON.parse(sent), null, 2) })), ['reserialised_json']);
  const multiline = '{\n  "a": 1\n}';
  assert.deepEqual(
    codes(await run({ body: multiline.replace(/\n/g, '\r\n'), header: lines(v1a(multiline)), secret: publicKey })),
    ['crlf'],
  );
  assert.deepEqual(codes(await run({ body: `\uFEFF${sent}` })), ['bom']);
  const mojibake = Array.from(new TextEncoder().encode(sent), (b) => String.fromCharCode(b)).join('');
  assert.deepEqual(codes(await run({ body: mojibake })), ['wrong_encoding']);
});

test('secret mistakes: whitespace, another live secret or key, a key of the wrong kind; a missing prefix is no mistake here', async () => {
  assert.deepEqual(codes(await run({ secret: `${secret}\n` })), ['secret_whitespace']);
  assert.deepEqual(
    codes(await run({ secret: secret.slice('whsec_'.length) })),
    ['signature_ok'],
    'Standard Webhooks decodes the part after whsec_',
  );
  const other = `whsec_${Buffer.alloc(32, 6).toString('base64')}`;
  const wrong = await run({ header: lines(v1(other)), reference: { rawBody: sent, secrets: [other, publicKey] } });
  assert.deepEqual(codes(wrong), ['wrong_secret']);
  const onlyV1a = await run({ header: lines(v1a()) });
  assert.deepEqual(codes(onlyV1a), ['key_kind']);
  assert.match(onlyV1a.findings[0].detail, /whpk_… public key/);
  assert.deepEqual(codes(await run({ secret: publicKey })), ['key_kind'], 'a public key for a request signed v1 only');
  const none = await run({ secret: `whsec_${Buffer.alloc(32, 8).toString('base64')}` });
  assert.deepEqual(codes(none), ['no_matching_signature']);
  assert.match(none.findings[0].detail, /base64 after whsec_, decoded/);
});

test("headers: one missing or malformed is said in Standard Webhooks' terms; the timestamp too", async () => {
  const missing = await run({ header: `webhook-id: ${id}\nwebhook-timestamp: ${t}` });
  assert.deepEqual(codes(missing), ['no_header']);
  assert.match(missing.findings[0].detail, /webhook-signature is missing/);
  assert.deepEqual(
    codes(await run({ header: `webhook-id: a.b\nwebhook-timestamp: ${t}\nwebhook-signature: ${v1()}` })),
    ['malformed_header'],
  );
  const stale = await run({ now: t + 400 });
  assert.deepEqual(codes(stale), ['stale_timestamp', 'signature_ok']);
  assert.match(stale.findings[0].detail, new RegExp(`^webhook-timestamp ${t} is 400 s old`));
});

test("verifyWebhook's hint comes from the same doctor (node:crypto) for Standard Webhooks", () => {
  const headers = { 'webhook-id': id, 'webhook-timestamp': String(t), 'webhook-signature': v1a() };
  const attempt = (payload: string, keys: string[]) => {
    try {
      verifyWebhook({ payload, headers, secret: keys, now: t });
    } catch (err) {
      assert.ok(err instanceof WebhookVerificationError);
      return err.hintCode;
    }
    return 'verified';
  };
  assert.equal(attempt(sent, [publicKey]), 'verified');
  assert.equal(attempt(JSON.stringify(JSON.parse(sent), null, 2), [publicKey]), 'reserialised_json');
  assert.equal(attempt(sent, [secret]), 'key_kind');
});
