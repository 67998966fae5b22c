import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { after, before, test } from 'node:test';
import { resignedCurl, shellQuote } from '../../src/shared/curl.ts';
import { independentlyVerify, Receiver } from '../helpers/receiver.ts';

const receiver = new Receiver();
before(() => receiver.start());
after(() => receiver.close());

test('shell quoting survives single quotes', async () => {
  const { stdout } = await promisify(execFile)('sh', ['-c', `printf %s ${shellQuote("it's a 'test'")}`]);
  assert.equal(stdout, "it's a 'test'");
});

test('copy as curl sends the exact body, re-signed with a fresh timestamp that verifies', async () => {
  const body = `{"topic":"order.placed","data":{"note":"it's \\"quoted\\" ✓","crlf":"a\\r\\nb"}}`;
  const now = Math.floor(Date.now() / 1000);
  const command = await resignedCurl({ url: receiver.url, topic: 'order.placed', deliveryId: 'dlv_x', rawBody: body, secrets: ['whsec_new', 'whsec_old'], now });
  await promisify(execFile)('sh', ['-c', `${command} -s -o /dev/null`]);
  const [got] = await receiver.waitFor(1);
  assert.equal(got.body, body);
  assert.equal(got.headers['x-service-topic'], 'order.placed');
  assert.equal(got.headers['x-service-delivery-id'], 'dlv_x');
  const signature = String(got.headers['x-service-signature']);
  assert.match(signature, new RegExp(`^t=${now},v1=[0-9a-f]{64},v1=[0-9a-f]{64}$`));
  assert.ok(independentlyVerify(signature, got.body, 'whsec_new'));
  assert.ok(independentlyVerify(signature, got.body, 'whsec_old'));
});
