// The receiver check with Standard Webhooks (SPEC §10, §11): every case of the battery applies, signed in
// the endpoint's scheme and worded in its terms (webhook-signature, webhook-timestamp, webhook-id).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Webhook as StandardWebhook } from 'standardwebhooks';
import { verifyWebhook } from '../../../src/receiver/index.ts';
import { createSandbox, useEngine, type TestSandbox } from '../../helpers/engine.ts';
import { startStandardReceiver, type StandardFlaw } from '../../helpers/standard-check-receivers.ts';
import { registerEndpoint } from '../../helpers/webhooks.ts';
import { failedCases, runCheck } from './helpers.ts';

const engine = useEngine();

/**
 * An endpoint with `signature` on a Standard Webhooks receiver with `flaws`, checked through the API. The
 * receiver holds the endpoint's secret for HMAC (or, with `holds: 'secret'`, even where only v1a is sent).
 */
async function checked(
  signature: string[],
  flaws: StandardFlaw[] = [],
  withEffects = false,
  holds?: 'secret',
): Promise<{ sb: TestSandbox; run: any; endpoint: any }> {
  const sb = await createSandbox(engine.url);
  let key = '';
  const rx = await startStandardReceiver(() => key, ...flaws);
  try {
    const endpoint = await registerEndpoint(sb, rx.url, ['order.*'], { signature });
    key = signature.includes('standard-webhooks') || holds === 'secret' ? endpoint.secret : endpoint.publicKey;
    const run = await runCheck(sb, { endpointId: endpoint.id, effectsUrl: withEffects ? rx.effectsUrl : undefined });
    return { sb, run, endpoint };
  } finally {
    await rx.close();
  }
}

const caseOf = (run: any, id: string) => run.report.cases.find((c: any) => c.id === id);

test('a correct Standard Webhooks receiver passes the whole battery, HMAC and ed25519 alike; requests are signed in the scheme', async () => {
  for (const signature of [['standard-webhooks'], ['standard-webhooks-ed25519']]) {
    const { sb, run, endpoint } = await checked(signature, [], true);
    assert.deepEqual(
      failedCases(run),
      [],
      `${signature}: ${JSON.stringify(
        run.report.cases.filter((c: any) => !c.ok),
        null,
        1,
      )}`,
    );
    assert.equal(run.report.passed, 15);
    assert.deepEqual(run.signature, signature);
    const [first] = caseOf(run, 'valid').deliveryIds;
    const d = (await sb.api(`/api/v1/webhooks/deliveries/${first}`)).body;
    assert.deepEqual(d.attempts[0].signature, signature);
    assert.deepEqual(Object.keys(d.attempts[0].signatureHeaders).sort(), [
      'webhook-id',
      'webhook-signature',
      'webhook-timestamp',
    ]);
    assert.deepEqual(Object.keys(d.envelope), ['type', 'timestamp', 'data']);
    const secrets = (await sb.api(`/api/v1/webhooks/checks/${run.id}/secrets`)).body.data;
    assert.equal(secrets[0].publicKey, signature[0] === 'standard-webhooks-ed25519' ? endpoint.publicKey : null);
  }
});

test("Copy as curl on a check's request signs it in the run's schemes, as it went out (not Sandbay's)", async () => {
  for (const signature of [['standard-webhooks'], ['standard-webhooks-ed25519']]) {
    const { sb, run, endpoint } = await checked(signature);
    const [first] = caseOf(run, 'valid').deliveryIds;
    const signed = (await sb.api(`/api/v1/webhooks/deliveries/${first}/signed-request`)).body;
    assert.deepEqual(signed.signature, signature);
    assert.equal(signed.headers['x-service-signature'], undefined, String(signature));
    assert.equal(signed.headers['webhook-id'], first);
    if (signature[0] === 'standard-webhooks')
      assert.ok(new StandardWebhook(endpoint.secret).verify(signed.body, signed.headers));
    else
      verifyWebhook({
        headers: signed.headers,
        payload: signed.body,
        secret: endpoint.publicKey,
        scheme: 'standard-webhooks-ed25519',
      });
  }
});

test("the cases speak the scheme's words: webhook-timestamp, webhook-signature, the duplicate keyed on webhook-id", async () => {
  const sb = await createSandbox(engine.url);
  const cases = (await sb.api('/api/v1/webhooks/check-cases?signature=standard-webhooks')).body.data;
  const sends = Object.fromEntries(cases.map((c: any) => [c.id, c.sends]));
  assert.equal(sends['missing-signature'], 'no webhook-signature header');
  assert.equal(sends['stale-timestamp'], 'signed correctly, webhook-timestamp 10 minutes in the past');
  assert.equal(sends.duplicate, 'the same delivery twice (same webhook-id, fresh signature)');
  assert.equal(sends['malformed-signature'], 'webhook-signature "garbage", then "v1,"');
  const sandbay = (await sb.api('/api/v1/webhooks/check-cases')).body.data;
  assert.equal(sandbay.find((c: any) => c.id === 'missing-signature').sends, 'no X-Service-Signature header');
});

test('broken Standard Webhooks receivers fail the cases that catch them, with causes in its terms', async () => {
  const utf8 = (await checked(['standard-webhooks'], ['utf8-key'])).run;
  assert.equal(caseOf(utf8, 'valid').status, 'failed');
  assert.match(
    caseOf(utf8, 'valid').cause,
    /keys the HMAC with the whole whsec_… string as UTF-8 bytes \(Sandbay's own scheme\)/,
  );

  // Keying with the base64 text itself, forgetting to decode it after the prefix.
  const undecoded = (await checked(['standard-webhooks'], ['undecoded-key'])).run;
  assert.deepEqual(failedCases(undecoded), ['valid']);
  assert.match(
    caseOf(undecoded, 'valid').cause,
    /keys the HMAC with the base64 text after whsec_ as it is \(its UTF-8 bytes\), not base64-decoded/,
  );
  assert.match(caseOf(undecoded, 'valid').fix, /base64 after whsec_, decoded/);

  // Signing "<timestamp>.<body>" without the webhook-id, with HMAC and with ed25519 alike.
  for (const signature of [['standard-webhooks'], ['standard-webhooks-ed25519']]) {
    const noId = (await checked(signature, ['no-id'])).run;
    assert.match(
      caseOf(noId, 'valid').cause,
      /signs "<webhook-timestamp>\.<body>", without the webhook-id/,
      String(signature),
    );
    assert.match(caseOf(noId, 'valid').fix, /webhook-id \+ "\." \+ webhook-timestamp/);
  }

  // An endpoint that signs v1a alone, and a receiver that compares it as an HMAC of the secret.
  const asHmac = (await checked(['standard-webhooks-ed25519'], ['v1a-as-hmac'], false, 'secret')).run;
  assert.match(
    caseOf(asHmac, 'valid').cause,
    /checks the signature as an HMAC of the whsec_… secret \(v1\), but this endpoint signs v1a alone/,
  );
  assert.match(caseOf(asHmac, 'valid').fix, /whpk_… public key/);

  const clock = (await checked(['standard-webhooks-ed25519'], ['skips-timestamp'])).run;
  assert.deepEqual(failedCases(clock), ['stale-timestamp', 'future-timestamp']);
  assert.match(caseOf(clock, 'stale-timestamp').cause, /whose webhook-timestamp is 10 minutes old/);

  const first = (await checked(['standard-webhooks'], ['first-signature-only'])).run;
  assert.deepEqual(failedCases(first), ['rotation']);
  assert.match(caseOf(first, 'rotation').cause, /compares only the first signature/);

  const dupes = (await checked(['standard-webhooks'], ['processes-duplicates'], true)).run;
  assert.deepEqual(failedCases(dupes), ['duplicate']);
  assert.match(caseOf(dupes, 'duplicate').fix, /Record each webhook-id you process/);

  const absent = (await checked(['standard-webhooks'], ['ignores-signature-when-absent'])).run;
  assert.deepEqual(failedCases(absent), ['missing-signature']);
  assert.match(caseOf(absent, 'missing-signature').cause, /without a webhook-signature header/);
});

test('a bare URL can be checked with signature standard-webhooks and a secret', async () => {
  const sb = await createSandbox(engine.url);
  const secret = `whsec_${Buffer.alloc(32, 4).toString('base64')}`;
  const rx = await startStandardReceiver(() => secret);
  try {
    const run = await runCheck(sb, { url: rx.url, secret, signature: 'standard-webhooks' } as any);
    assert.deepEqual(failedCases(run), []);
    assert.deepEqual(run.signature, ['standard-webhooks']);
  } finally {
    await rx.close();
  }
  const refused = await sb.api('/api/v1/webhooks/checks', {
    body: { url: rx.url, signature: 'standard-webhooks-ed25519' },
  });
  assert.equal(refused.status, 422);
});

test('sandbay check --signature standard-webhooks: the lines in its words, exit 0; ed25519 asks for an endpoint', async () => {
  const { runCli, assertOneLineFailure } = await import('../../helpers/cli.ts');
  const sb = await createSandbox(engine.url);
  const secret = `whsec_${Buffer.alloc(32, 2).toString('base64')}`;
  const rx = await startStandardReceiver(() => secret);
  try {
    const as = ['--url', engine.url, '--token', sb.token];
    const result = await runCli(['check', rx.url, '--secret', secret, '--signature', 'standard-webhooks', ...as]);
    assert.equal(result.code, 0, result.stdout + result.stderr);
    assert.match(result.stdout, /^Checking http:\/\/127\.0\.0\.1:\d+\/hook, signed standard-webhooks with 15 cases…/);
    assert.match(result.stdout, /no webhook-signature header/);
    assertOneLineFailure(
      await runCli(['check', rx.url, '--signature', 'standard-webhooks-ed25519', ...as]),
      /ed25519 needs a key pair: register an endpoint with it and check --endpoint/,
    );
  } finally {
    await rx.close();
  }
});

test('a receiver answering 410 or Retry-After hears what Sandbay does with those answers', async () => {
  const { createServer } = await import('node:http');
  const sb = await createSandbox(engine.url);
  // Answers the given status and headers to everything; the check signs with the test secret.
  const answering = async (status: number, headers: Record<string, string> = {}) => {
    const server = createServer((req, res) => req.resume().on('end', () => res.writeHead(status, headers).end('no')));
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const url = `http://127.0.0.1:${(server.address() as { port: number }).port}/hook`;
    try {
      return await runCheck(sb, { url });
    } finally {
      server.closeAllConnections();
      server.close();
    }
  };
  const gone = await answering(410);
  assert.match(caseOf(gone, 'valid').cause, /Answered 410 Gone: .*the endpoint is disabled/);
  const throttled = await answering(429, { 'retry-after': '120' });
  assert.match(caseOf(throttled, 'valid').cause, /Answered 429 with Retry-After: 120: it asks Sandbay to slow down/);

  // Refusing a forged request with 410 refuses it, but would turn a real endpoint off: that case fails.
  const { independentlyVerify } = await import('../../helpers/receiver.ts');
  const refusesWith410 = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req
      .on('data', (c: Buffer) => chunks.push(c))
      .on('end', () => {
        const ok = independentlyVerify(
          String(req.headers['x-service-signature'] ?? ''),
          Buffer.concat(chunks).toString('utf8'),
          sb.webhookTestSecret,
        );
        res.writeHead(ok ? 200 : 410).end();
      });
  });
  await new Promise<void>((r) => refusesWith410.listen(0, '127.0.0.1', r));
  try {
    const run = await runCheck(sb, {
      url: `http://127.0.0.1:${(refusesWith410.address() as { port: number }).port}/hook`,
    });
    assert.equal(caseOf(run, 'valid').status, 'passed');
    assert.equal(caseOf(run, 'tampered-body').status, 'failed');
    assert.match(caseOf(run, 'tampered-body').cause, /Answered 410 Gone/);
    assert.match(caseOf(run, 'tampered-body').fix, /Answer 400 to a request that fails verification/);
  } finally {
    refusesWith410.closeAllConnections();
    refusesWith410.close();
  }
});
