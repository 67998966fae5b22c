// Provenance of the Standard Webhooks v1 vectors in tests/fixtures/signature-vectors.json: computed
// once with the specification's official JavaScript library (npm `standardwebhooks`), never with
// Sandbay's own code, and pasted into the fixture. Run: node scripts/vectors/standard-webhooks-v1.mjs
import { createRequire } from 'node:module';

const { Webhook } = createRequire(import.meta.url)('standardwebhooks');

const body =
  '{"type":"order.placed","timestamp":"2026-11-20T10:00:00.000Z","data":{"orderId":"ord_0001","total":1499.9,"currency":"TRY","customerId":"cus_0001"}}';
const utf8 =
  '{"type":"order.placed","timestamp":"2026-11-20T10:00:00.000Z","data":{"city":"İstanbul","district":"Kadıköy","note":"çğıöşü ✓"}}';
const secret24 = `whsec_${Buffer.from(Array.from({ length: 24 }, (_, i) => i * 7 + 1)).toString('base64')}`;
const secret64 = `whsec_${Buffer.from(Array.from({ length: 64 }, (_, i) => 255 - i * 3)).toString('base64')}`;
const svix = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw'; // the secret of the specification's and Svix's own examples

const sign = (secret, id, t, payload) => new Webhook(secret).sign(id, new Date(t * 1000), payload);
const cases = [
  [svix, 'msg_p5jXN8AQM9LWM0D4loKWxJek', 1614265330, '{"test": 2432232314}'],
  [secret24, 'dlv_0001', 1763805600, body],
  [secret64, 'dlv_0002', 1763805601, utf8],
].map(([secret, id, t, payload]) => ({
  secret,
  id,
  timestamp: t,
  body: payload,
  signedContent: `${id}.${t}.${payload}`,
  signature: sign(secret, id, t, payload),
}));
const rotation = { secrets: [secret64, secret24], id: 'dlv_0003', timestamp: 1763805602, body };
rotation.header = rotation.secrets.map((s) => sign(s, rotation.id, rotation.timestamp, body)).join(' ');
console.log(JSON.stringify({ cases, rotation }, null, 2));
