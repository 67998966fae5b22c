import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { createSandbox, useEngine } from '../../helpers/engine.ts';
import { independentlyVerify, Receiver } from '../../helpers/receiver.ts';

const engine = useEngine();
const receiver = new Receiver();
before(() => receiver.start());
after(() => receiver.close());

test('an endpoint created with a secret of its own signs with it (Standard Webhooks’ rule: whsec_ + base64 of 24–64 bytes)', async () => {
  const sb = await createSandbox(engine.url);
  const secret = `whsec_${Buffer.alloc(32, 7).toString('base64')}`;
  const created = await sb.api('/api/v1/webhooks/endpoints', {
    body: { url: receiver.url, topics: ['order.placed'], secret },
  });
  assert.equal(created.status, 201);
  assert.equal(created.body.secret, secret);
  const before = receiver.received.length;
  await sb.api('/api/v1/webhooks/test', { body: { topic: 'order.placed', endpoint: created.body.id } });
  const [req] = (await receiver.waitFor(before + 1)).slice(before);
  assert.ok(independentlyVerify(req.headers['x-service-signature'] as string, req.body, secret));
});

test('a secret that is not whsec_ + base64 of 24–64 bytes is refused naming the field; PATCH takes none', async () => {
  const sb = await createSandbox(engine.url);
  for (const secret of ['hunter2', 'whsec_short', `whsec_${Buffer.alloc(65).toString('base64')}`, 'whsec_!!!!']) {
    const res = await sb.api('/api/v1/webhooks/endpoints', { body: { url: receiver.url, topics: ['*'], secret } });
    assert.equal(res.status, 422, secret);
    assert.equal(res.body.errors[0].path, '/secret');
  }
  const ok = await sb.api('/api/v1/webhooks/endpoints', { body: { url: receiver.url, topics: ['*'] } });
  const patch = await sb.api(`/api/v1/webhooks/endpoints/${ok.body.id}`, {
    method: 'PATCH',
    body: { secret: `whsec_${Buffer.alloc(32).toString('base64')}` },
  });
  assert.equal(patch.status, 400, 'a secret changes by rotation, not by PATCH');
  assert.equal(patch.body.code, 'unknown_field');
});
