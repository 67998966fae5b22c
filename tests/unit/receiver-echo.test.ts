// The debug echo: what a receiver says it verified (Sandbay-Echo), compared with what Sandbay sent.
import assert from 'node:assert/strict';
import { createHash, createHmac } from 'node:crypto';
import { test } from 'node:test';
import { verifyWebhook, WebhookVerificationError } from '../../src/receiver/index.ts';
import { JsonFloat, jsonFormById, writeJson } from '../../src/shared/json-forms.ts';
import { diagnoseEcho, parseEcho } from '../../src/shared/receiver-echo.ts';

const secret = 'whsec_echoUnitSecret0123456789abcdef';
const t = 1_800_000_000;
const event = {
  topic: 'order.placed',
  deliveryId: 'dlv_echo',
  tenantId: 'sbx_echo',
  occurredAt: '2026-01-01T00:00:00.000Z',
  data: { city: 'Kadıköy/İstanbul', total: 10.5, n: new JsonFloat(1) },
};
const sent = JSON.stringify(event);
// What a language's serialiser makes of the bytes Sandbay sent, parsed.
const as = (form: Parameters<typeof jsonFormById>[0]) => writeJson(JSON.parse(sent), jsonFormById(form));

/** The header a receiver writes for bytes it verified with a key. */
function echoOf(verified: Buffer, key: string | Buffer, withBody = true): string {
  const v1 = createHmac('sha256', key).update(`${t}.`).update(verified).digest('hex');
  const fields = [
    `length=${verified.length}`,
    `sha256=${createHash('sha256').update(verified).digest('hex')}`,
    `v1=${v1}`,
    `t=${t}`,
  ];
  return (withBody ? [...fields, `body=${verified.toString('base64')}`] : fields).join(',');
}

async function diagnose(header: string): Promise<string[]> {
  const echo = parseEcho({ 'sandbay-echo': header })!;
  return (await diagnoseEcho({ echo, sent, timestamp: t, secrets: [secret] })).map(
    (f) => f.code + (f.form ? `:${f.form.id}` : ''),
  );
}

test('each body mistake is named, from the echoed bytes or from their sha256 alone', async () => {
  const bodies: [string, Buffer][] = [
    ['reserialised_json:python', Buffer.from(as('python'))],
    ['reserialised_json:php', Buffer.from(as('php'))],
    ['reserialised_json:go', Buffer.from(as('go'))],
    ['wrong_encoding', Buffer.from(Buffer.from(sent, 'utf8').toString('latin1'), 'utf8')],
    ['bom', Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(sent)])],
    ['truncated_body', Buffer.from(sent).subarray(0, 40)],
  ];
  for (const [code, verified] of bodies) {
    assert.deepEqual(await diagnose(echoOf(verified, secret)), [code], `${code}, with the bytes`);
    assert.deepEqual(await diagnose(echoOf(verified, secret, false)), [code], `${code}, from the hash`);
  }
});

test('each reading of the secret is named from the v1 it computed; the secret itself never travels', async () => {
  const body = Buffer.from(sent);
  assert.deepEqual(await diagnose(echoOf(body, secret.replace('whsec_', ''))), ['stripped_prefix']);
  assert.deepEqual(await diagnose(echoOf(body, Buffer.from(secret.replace('whsec_', ''), 'base64'))), ['decoded_key']);
  assert.deepEqual(await diagnose(echoOf(body, `${secret}\n`)), ['secret_whitespace']);
  assert.deepEqual(await diagnose(echoOf(body, 'whsec_someOtherSecret')), ['wrong_secret']);
  assert.deepEqual(
    await diagnose(echoOf(body, secret)),
    ['echo_matches'],
    'right bytes, right key: the rejection is elsewhere',
  );
  assert.ok(!echoOf(body, secret).includes(secret.slice(6)));
  // Both at once: the body, then the key.
  assert.deepEqual(await diagnose(echoOf(Buffer.from(as('python')), secret.replace('whsec_', ''))), [
    'reserialised_json:python',
    'stripped_prefix',
  ]);
});

test('the echo is read from the header or from a sandbayEcho body field; garbage is no echo', () => {
  const header = echoOf(Buffer.from(sent), secret);
  assert.equal(parseEcho({ 'sandbay-echo': header })!.t, t);
  assert.equal(
    parseEcho({}, JSON.stringify({ error: 'invalid signature', sandbayEcho: header }))!.length,
    Buffer.byteLength(sent),
  );
  assert.equal(parseEcho({ 'sandbay-echo': 'nonsense' }), undefined);
  assert.equal(parseEcho({}, '{"sandbayEcho": 3}'), undefined);
  assert.equal(parseEcho({}, 'not json sandbayEcho'), undefined);
});

test("verifyWebhook's error carries the echo of what it verified, which the doctor reads back", async () => {
  const reserialised = as('python');
  const header = `t=${t},v1=${createHmac('sha256', secret).update(`${t}.${sent}`).digest('hex')}`;
  let echo = '';
  try {
    verifyWebhook({ payload: reserialised, header, secret, now: t });
    assert.fail('expected a failure');
  } catch (err) {
    assert.ok(err instanceof WebhookVerificationError);
    echo = err.echo!;
  }
  assert.match(echo, /^length=\d+,sha256=[0-9a-f]{64},v1=[0-9a-f]{64},t=1800000000,body=/);
  assert.deepEqual(await diagnose(echo), ['reserialised_json:python']);
});
