import assert from 'node:assert/strict';
import { test } from 'node:test';
import { signatureHeader, v1Signature } from '../../src/receiver/sign.ts';
import { verifyWebhook } from '../../src/receiver/verify.ts';
import { signatureVectors } from '../helpers/vectors.ts';

test('the engine signs the reference vectors byte for byte, string or bytes alike', () => {
  for (const c of signatureVectors.cases) {
    assert.equal(v1Signature(c.secret, c.t, c.body), c.v1);
    assert.equal(v1Signature(c.secret, c.t, Buffer.from(c.body, 'utf8')), c.v1);
    assert.equal(signatureHeader([c.secret], c.body, c.t), c.header);
  }
  const { secrets, t, body, header } = signatureVectors.rotation;
  assert.equal(signatureHeader(secrets, body, t), header);
});

test('what the engine signs, the receiver package accepts with either secret of a rotation', () => {
  const body = JSON.stringify({
    topic: 'order.created',
    deliveryId: 'dlv_1',
    tenantId: 'sbx_1',
    occurredAt: '2025-01-01T00:00:00.000Z',
    data: { note: 'é ✓' },
  });
  const header = signatureHeader(['whsec_new', 'whsec_old'], body, 1_700_000_000);
  for (const secret of ['whsec_new', 'whsec_old']) {
    assert.equal(verifyWebhook({ payload: body, header, secret, now: 1_700_000_000 }).deliveryId, 'dlv_1');
  }
});
