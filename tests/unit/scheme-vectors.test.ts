// Sandbay's schemes against the Standard Webhooks vectors computed outside the project (the official
// library for v1, RFC 8032 keys and OpenSSL for v1a): the engine's signer, the receiver-side check and
// the browser's WebCrypto breakdown all agree with them byte for byte.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { publicKeyText } from '../../src/receiver/ed25519-keys.ts';
import { schemeById, signRequest } from '../../src/receiver/schemes.ts';
import { standardV1, standardV1a } from '../../src/receiver/standard.ts';
import { breakDownStandard } from '../../src/shared/standard-breakdown.ts';
import { signatureVectors } from '../helpers/vectors.ts';

const { standardWebhooks: v1, standardWebhooksEd25519: v1a } = signatureVectors;
const headersOf = (c: { id: string; timestamp: number }, signature: string) => ({
  'webhook-id': c.id,
  'webhook-timestamp': String(c.timestamp),
  'webhook-signature': signature,
});

test('v1: the engine signs every vector exactly, the receiver check accepts it, and one changed byte fails', () => {
  for (const c of v1.cases) {
    assert.equal(`v1,${standardV1(c.secret, c.id, c.timestamp, c.body)}`, c.signature);
    assert.equal(`${c.id}.${c.timestamp}.${c.body}`, c.signedContent);
    const reading = schemeById('standard-webhooks').read(headersOf(c, c.signature));
    assert.ok(
      typeof reading === 'object' && schemeById('standard-webhooks').matches(reading, Buffer.from(c.body), [c.secret]),
    );
    assert.ok(
      typeof reading === 'object' && !schemeById('standard-webhooks').matches(reading, `${c.body} `, [c.secret]),
    );
  }
  const r = v1.rotation;
  assert.equal(
    signRequest(['standard-webhooks'], { id: r.id, timestamp: r.timestamp, payload: r.body, secrets: r.secrets })[
      'webhook-signature'
    ],
    r.header,
  );
});

test('v1a: the key texts and signatures are the vectors, and verification needs the right key and body', () => {
  for (const c of v1a.cases) {
    assert.equal(publicKeyText(c.signingKey), c.publicKey);
    assert.equal(
      `v1a,${standardV1a(c.signingKey, c.id, c.timestamp, c.body)}`,
      c.signature,
      'ed25519 is deterministic',
    );
    const reading = schemeById('standard-webhooks-ed25519').read(headersOf(c, c.signature));
    assert.ok(typeof reading === 'object');
    assert.ok(schemeById('standard-webhooks-ed25519').matches(reading, c.body, [c.publicKey]));
    assert.ok(
      !schemeById('standard-webhooks-ed25519').matches(reading, c.body.replace('"data"', '"Data"'), [c.publicKey]),
    );
    const other = v1a.cases.find((o) => o !== c)!.publicKey;
    assert.ok(!schemeById('standard-webhooks-ed25519').matches(reading, c.body, [other]));
  }
  const r = v1a.rotation;
  const keys = v1a.cases.map((c) => c.signingKey).reverse();
  assert.equal(
    signRequest(['standard-webhooks-ed25519'], {
      id: r.id,
      timestamp: r.timestamp,
      payload: r.body,
      secrets: [],
      signingKeys: keys,
    })['webhook-signature'],
    r.header,
  );
});

test("the browser's breakdown (WebCrypto) matches each signature to its key", async () => {
  const c = v1.cases[2];
  const e = v1a.cases[0];
  const header = `${c.signature} ${e.signature}`;
  const result = await breakDownStandard({
    headers: { id: c.id, timestamp: String(c.timestamp), signature: header },
    body: c.body,
    secrets: ['whsec_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA', c.secret],
    publicKeys: [e.publicKey],
    now: c.timestamp + 10,
  });
  assert.ok(result.ok);
  assert.deepEqual(
    result.breakdown.signatures.map((s) => s.matched),
    [{ kind: 'secret', index: 1 }, null],
    'v1a of another message does not verify',
  );
  assert.equal(result.breakdown.signedString, c.signedContent);
  assert.equal(result.breakdown.bytes.total, Buffer.byteLength(c.signedContent));
  const ed = await breakDownStandard({
    headers: { id: e.id, timestamp: String(e.timestamp), signature: e.signature },
    body: e.body,
    secrets: [],
    publicKeys: [e.publicKey],
    now: e.timestamp,
  });
  assert.ok(ed.ok);
  assert.deepEqual(ed.breakdown.signatures[0].matched, { kind: 'publicKey', index: 0 });
  assert.deepEqual(
    await breakDownStandard({
      headers: { id: 'a.b', timestamp: '1', signature: c.signature },
      body: '',
      secrets: [],
      publicKeys: [],
      now: 1,
    }),
    { ok: false, reason: 'malformed_header' },
  );
});
