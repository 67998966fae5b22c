// verifyWebhook with Standard Webhooks (SPEC §11): the scheme read off the headers or named, v1 with
// whsec_ secrets and v1a with whpk_ public keys, both header sets at once; requests signed by the
// official standardwebhooks library and by node:crypto, not by the kit.
import assert from 'node:assert/strict';
import { sign as ed25519Sign } from 'node:crypto';
import { test } from 'node:test';
import { Webhook } from 'standardwebhooks';
import {
  signTestHeaders,
  verifyWebhook,
  WebhookVerificationError,
  type VerificationFailure,
} from '../../src/receiver/index.ts';
import { vectorKeyPair } from '../helpers/ed25519.ts';

const body = '{"type":"order.placed","timestamp":"2026-01-01T00:00:00.000Z","data":{"orderId":"ord_1","total":10.5}}';
const secret = `whsec_${Buffer.alloc(32, 3).toString('base64')}`;
const { signingKey, publicKey, privateKey } = vectorKeyPair;
const t = Math.floor(Date.now() / 1000);
const id = 'dlv_std';
const v1 = (s: string, at = t, msg = id) => new Webhook(s).sign(msg, new Date(at * 1000), body);
const v1a = (at = t) => `v1a,${ed25519Sign(null, Buffer.from(`${id}.${at}.${body}`), privateKey).toString('base64')}`;
const headers = (signature: string, at = t) => ({
  'webhook-id': id,
  'webhook-timestamp': String(at),
  'webhook-signature': signature,
});

function rejects(reason: VerificationFailure, options: Parameters<typeof verifyWebhook>[0], message?: RegExp): void {
  assert.throws(
    () => verifyWebhook(options),
    (err: unknown) => {
      assert.ok(err instanceof WebhookVerificationError, String(err));
      assert.equal(err.reason, reason);
      if (message) assert.match(err.message, message);
      return true;
    },
  );
}

test('a Standard Webhooks request is recognised by its headers and verified with a whsec_ secret (v1) or a whpk_ key (v1a)', () => {
  assert.deepEqual(verifyWebhook({ payload: body, headers: headers(v1(secret)), secret }), JSON.parse(body));
  assert.deepEqual(
    verifyWebhook({ payload: Buffer.from(body), headers: new Headers(headers(v1a())), secret: publicKey }),
    JSON.parse(body),
  );
  const both = headers(`${v1(secret)} ${v1a()}`);
  for (const keys of [[secret], [publicKey], [publicKey, secret]])
    assert.ok(verifyWebhook({ payload: body, headers: both, secret: keys }));
  const typed = verifyWebhook<{ orderId: string }>({
    payload: body,
    headers: both,
    secret: publicKey,
    scheme: 'standard-webhooks-ed25519',
  });
  assert.equal(typed.type, 'order.placed');
  assert.equal(typed.data.orderId, 'ord_1');
});

test('during a migration both header sets are there: either kind of key verifies, and the failure that got furthest is reported', () => {
  const sandbay = signTestHeaders({ payload: body, secret, scheme: 'sandbay', timestamp: t });
  const all = { ...sandbay, ...headers(v1(secret)) };
  assert.ok(verifyWebhook({ payload: body, headers: all, secret }));
  assert.ok(verifyWebhook({ payload: body, headers: all, secret, scheme: 'sandbay' }));
  rejects('no_matching_signature', { payload: `${body} `, headers: all, secret });
});

test('a rotation: the new and the old secret each verify the same request; the wrong one does not', () => {
  const old = `whsec_${Buffer.alloc(24, 9).toString('base64')}`;
  const rotated = headers(`${v1(secret)} ${v1(old)}`);
  for (const s of [secret, old]) assert.ok(verifyWebhook({ payload: body, headers: rotated, secret: s }));
  rejects(
    'no_matching_signature',
    { payload: body, headers: rotated, secret: `whsec_${Buffer.alloc(32, 1).toString('base64')}` },
    /No v1 \(base64 HMAC/,
  );
});

test("what Standard Webhooks rejects, verifyWebhook rejects with the same reasons as for Sandbay's scheme", () => {
  rejects(
    'no_header',
    { payload: body, headers: { 'webhook-id': id }, secret, scheme: 'standard-webhooks' },
    /No webhook-signature header/,
  );
  rejects('malformed_header', { payload: body, headers: { ...headers(v1(secret)), 'webhook-id': '' }, secret });
  rejects('malformed_header', { payload: body, headers: { ...headers(v1(secret)), 'webhook-id': 'a.b' }, secret });
  rejects('malformed_header', { payload: body, headers: headers(v1(secret), Number.NaN), secret });
  rejects('no_matching_signature', { payload: body, headers: headers(v1(secret, t, 'dlv_other')), secret }); // signed for another webhook-id
  rejects(
    'timestamp_outside_tolerance',
    // now fixed: a slow box may tick a second
    { payload: body, headers: headers(v1(secret, t - 400), t - 400), secret, now: t },
    /400 s old/,
  );
  rejects(
    'timestamp_outside_tolerance',
    { payload: body, headers: headers(v1a(t + 400), t + 400), secret: publicKey, now: t },
    /in the future/,
  );
  rejects(
    'no_matching_signature',
    {
      payload: body,
      headers: headers(v1a()),
      secret: publicKey.replace(/^whpk_./, 'whpk_A'),
    },
    /Likely cause: Wrong public key\..* Use the endpoint's current whpk_… public key/,
  );
  rejects('no_matching_signature', { payload: body, headers: headers(v1a()), secret }, /v1a|v1 /);
  assert.throws(
    () => verifyWebhook({ payload: body, header: 't=1,v1=a', secret, scheme: 'standard-webhooks' }),
    TypeError,
  );
});

test("signTestHeaders signs a receiver's own fixtures in any scheme; the official library accepts its v1", () => {
  const signed = signTestHeaders({
    payload: body,
    secret: [secret, signingKey],
    scheme: ['standard-webhooks', 'standard-webhooks-ed25519'],
    id,
  });
  assert.deepEqual(Object.keys(signed), ['webhook-id', 'webhook-timestamp', 'webhook-signature']);
  assert.deepEqual(
    signed['webhook-signature'].split(' ').map((s) => s.split(',')[0]),
    ['v1', 'v1a'],
  );
  assert.ok(new Webhook(secret).verify(body, signed));
  assert.ok(verifyWebhook({ payload: body, headers: signed, secret: publicKey, scheme: 'standard-webhooks-ed25519' }));
});

test('the webhook-signature value alone, passed as `header`, is a TypeError asking for the headers (its id and timestamp are signed too)', () => {
  for (const header of [v1(secret), v1a(), [v1(secret)]]) {
    assert.throws(
      () => verifyWebhook({ payload: body, header, secret }),
      /Standard Webhooks signs three headers \(webhook-id, webhook-timestamp, webhook-signature\): pass the request's `headers`/,
    );
  }
  // Sandbay's own header value is still read as before.
  rejects('no_matching_signature', { payload: body, header: `t=${t},v1=${'0'.repeat(64)}`, secret });
});
