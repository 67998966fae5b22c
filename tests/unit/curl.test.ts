import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { after, before, test } from 'node:test';
import { Webhook } from 'standardwebhooks';
import { curlCommand, shellQuote } from '../../src/shared/curl.ts';
import { newEd25519KeyPair } from '../../src/receiver/ed25519-keys.ts';
import { signAttempt } from '../../src/webhooks/attempt-signing.ts';
import { independentlyVerify, Receiver } from '../helpers/receiver.ts';

const receiver = new Receiver();
before(() => receiver.start());
after(() => receiver.close());

test('shell quoting survives single quotes', async () => {
  const { stdout } = await promisify(execFile)('sh', ['-c', `printf %s ${shellQuote("it's a 'test'")}`]);
  assert.equal(stdout, "it's a 'test'");
});

test("copy as curl sends the exact body with every scheme's fresh headers, and they verify at the receiver", async () => {
  const body = `{"topic":"order.placed","data":{"note":"it's \\"quoted\\" ✓","crlf":"a\\r\\nb"}}`;
  const now = Math.floor(Date.now() / 1000);
  const secrets = ['whsec_new', 'whsec_old'].map((s) => `${s}${'A'.repeat(28)}`);
  const { signingKey } = newEd25519KeyPair();
  const signed = signAttempt(
    { schemes: ['sandbay', 'standard-webhooks'], keys: { secrets, signingKeys: [signingKey] } },
    { id: 'dlv_x', topic: 'order.placed', body },
    now,
  );
  await promisify(execFile)('sh', ['-c', `${curlCommand(receiver.url, signed.headers, body)} -s -o /dev/null`]);
  const [got] = await receiver.waitFor(1);
  assert.equal(got.body, body);
  assert.equal(got.headers['x-service-topic'], 'order.placed');
  assert.equal(got.headers['x-service-delivery-id'], 'dlv_x');
  const signature = String(got.headers['x-service-signature']);
  assert.match(signature, new RegExp(`^t=${now},v1=[0-9a-f]{64},v1=[0-9a-f]{64}$`));
  for (const secret of secrets) {
    assert.ok(independentlyVerify(signature, got.body, secret));
    assert.ok(new Webhook(secret).verify(got.body, got.headers as Record<string, string>));
  }
});
