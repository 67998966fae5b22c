import assert from 'node:assert/strict';
import { test } from 'node:test';
import { redact } from '../../src/server/log.ts';

test('redact masks anything shaped like a Sandbay secret and the extra secrets it is given', () => {
  const line =
    'token sat_abcdefGHIJ12 refresh srt_Zyxwvu987654 secret cs_qwertyuiop whsec_0123456789 key sbk_ABCDEFGH code sac_aaaaaaaa';
  const out = redact(line);
  for (const secret of [
    'sat_abcdefGHIJ12',
    'srt_Zyxwvu987654',
    'cs_qwertyuiop',
    'whsec_0123456789',
    'sbk_ABCDEFGH',
    'sac_aaaaaaaa',
  ]) {
    assert.ok(!out.includes(secret), secret);
  }
  assert.match(out, /sat_…redacted/);
  assert.equal(redact('GET /api/v1/orders/ord_0001 200'), 'GET /api/v1/orders/ord_0001 200', 'ids are not secrets');
  const base64 = redact(
    'secret whsec_ab+/Cd9+xYz= key whsk_Q1w2+E3r/T4y5U6i7O8p9A0s=. public whpk_Q1w2+E3r/T4y5U6i7O8p9A0s=',
  );
  assert.equal(
    base64,
    'secret whsec_…redacted key whsk_…redacted. public whpk_Q1w2+E3r/T4y5U6i7O8p9A0s=',
    'base64 secrets whole; a public key is no secret',
  );
  assert.equal(redact('admin plainKey1 here', ['plainKey1']), 'admin …redacted here');
});
