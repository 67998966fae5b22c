import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { assertOneLineFailure, assertOneLineFailures, runCli, runCliJson } from '../helpers/cli.ts';
import { signatureVectors } from '../helpers/vectors.ts';

const vectors = signatureVectors;
const dir = mkdtempSync(join(tmpdir(), 'sandbay-verify-'));
after(() => rmSync(dir, { recursive: true, force: true }));

function bodyFile(name: string, body: string): string {
  const file = join(dir, name);
  writeFileSync(file, body);
  return file;
}

const secret = 'whsec_cli';
const body =
  '{"topic":"order.placed","deliveryId":"dlv_cli","tenantId":"sbx_cli","occurredAt":"2026-01-01T00:00:00Z","data":{}}';
const signedNow = () => {
  const t = Math.floor(Date.now() / 1000);
  return `t=${t},v1=${createHmac('sha256', secret).update(`${t}.${body}`).digest('hex')}`;
};

test('a good signature exits 0 and names the delivery', async () => {
  const result = await runCli([
    'verify',
    '--secret',
    secret,
    '--header',
    signedNow(),
    '--body-file',
    bodyFile('good.json', body),
  ]);
  assert.equal(result.code, 0, result.stderr);
  assert.match(result.stdout, /^valid: order\.placed dlv_cli, signed \d+s ago\n$/);
});

test('the body can come from stdin, as raw bytes', async () => {
  const result = await runCli(['verify', '--secret', secret, '--header', signedNow(), '--body-file', '-'], {
    input: Buffer.from(body),
  });
  assert.equal(result.code, 0, result.stderr);
});

test('every reference vector verifies as of its time, rotation headers with either secret', async () => {
  for (const [i, c] of vectors.cases.entries()) {
    const out = await runCliJson([
      'verify',
      '--secret',
      c.secret,
      '--header',
      c.header,
      '--body-file',
      bodyFile(`v${i}.json`, c.body),
      '--now',
      String(c.t),
    ]);
    assert.deepEqual(out, { valid: true, envelope: JSON.parse(c.body) });
  }
  const r = vectors.rotation;
  const file = bodyFile('rotation.json', r.body);
  for (const s of r.secrets)
    assert.equal(
      (await runCli(['verify', '--secret', s, '--header', r.header, '--body-file', file, '--now', String(r.t)])).code,
      0,
    );
  const both = await runCli([
    'verify',
    '--secret',
    'whsec_other',
    '--secret',
    r.secrets[1],
    '--header',
    r.header,
    '--body-file',
    file,
    '--now',
    String(r.t),
  ]);
  assert.equal(both.code, 0, both.stderr);
});

test('a wrong secret or a re-serialised body exits 1 with no_matching_signature', async () => {
  const header = signedNow();
  assertOneLineFailure(
    await runCli(['verify', '--secret', 'whsec_wrong', '--header', header, '--body-file', bodyFile('w.json', body)]),
    /invalid: no_matching_signature/,
  );
  const pretty = bodyFile('pretty.json', JSON.stringify(JSON.parse(body), null, 2));
  assertOneLineFailure(
    await runCli(['verify', '--secret', secret, '--header', header, '--body-file', pretty]),
    /no_matching_signature.*Likely cause: The JSON was parsed and serialised again/,
  );
});

test("the doctor's diagnosis names a secret stripped of its whsec_ prefix, in text and in --json", async () => {
  const header = signedNow();
  const file = bodyFile('prefix.json', body);
  const args = ['verify', '--secret', secret.slice('whsec_'.length), '--header', header, '--body-file', file];
  assertOneLineFailure(
    await runCli(args),
    /Likely cause: The secret lost its whsec_ prefix\. With whsec_ put back .* the signature matches.* Fix: The HMAC key is the whole whsec_… string/,
  );
  const json = await runCli([...args, '--json']);
  assert.equal(json.code, 1);
  const out = JSON.parse(json.stdout);
  assert.equal(out.cause, 'stripped_prefix');
  assert.match(out.hint, /minus its prefix/);
  assert.match(out.fix, /whole whsec_… string as UTF-8 bytes/, 'without --language, in words for every language');
  const sentences = (text: string) => text.split(/(?<=[.:])\s+/).filter((s) => s.length > 20);
  const repeated = sentences(out.hint).filter((s) => sentences(out.fix).some((f) => f.includes(s) || s.includes(f)));
  assert.deepEqual(repeated, [], 'the cause says what happened, the fix what to do: no sentence is said twice');
});

test('--language says the fix the way that language writes it; an unknown one is a one-line error', async () => {
  const header = signedNow();
  const args = [
    'verify',
    '--secret',
    secret.slice('whsec_'.length),
    '--header',
    header,
    '--body-file',
    bodyFile('lang.json', body),
  ];
  await assertOneLineFailures([
    [
      [...args, '--language', 'python'],
      /Likely cause: The secret lost its whsec_ prefix\..* Fix: In Python: hmac\.new\(secret\.encode\(\), …\)/,
    ],
    [[...args, '--language', 'go'], /Fix: In Go: hmac\.New\(sha256\.New, \[\]byte\(secret\)\)/],
  ]);
  const pretty = bodyFile('lang-pretty.json', JSON.stringify(JSON.parse(body), null, 2));
  await assertOneLineFailures([
    [
      ['verify', '--secret', secret, '--header', header, '--body-file', pretty, '--language', 'php'],
      /Likely cause: The JSON was parsed and serialised again\..* Fix: In PHP: verify file_get_contents\('php:\/\/input'\)/,
    ],
    [[...args, '--language', 'cobol'], /--language must be one of node, python, php, go, ruby, not cobol/],
  ]);
});

test('a stale or future timestamp exits 1 unless the tolerance allows it; --json says why', async () => {
  const c = vectors.cases[0];
  const file = bodyFile('stale.json', c.body);
  const args = ['verify', '--secret', c.secret, '--header', c.header, '--body-file', file];
  assertOneLineFailure(await runCli(args), /invalid: timestamp_outside_tolerance — The signature is \d+ s old/);
  assertOneLineFailure(await runCli([...args, '--now', String(c.t - 301)]), /301 s in the future/);
  assert.equal((await runCli([...args, '--now', String(c.t + 600), '--tolerance', '600'])).code, 0);
  const json = await runCli([...args, '--json']);
  assert.equal(json.code, 1);
  assert.equal(JSON.parse(json.stdout).reason, 'timestamp_outside_tolerance');
  assert.equal(JSON.parse(json.stdout).valid, false);
});

test('a missing or malformed header, an unreadable file and bad numbers are one-line errors', async () => {
  const file = bodyFile('m.json', body);
  await assertOneLineFailures([
    [['verify', '--secret', secret, '--header', '', '--body-file', file], /no_header/],
    [['verify', '--secret', secret, '--header', 'sha256=abc', '--body-file', file], /malformed_header/],
    [
      ['verify', '--secret', secret, '--header', signedNow(), '--body-file', join(dir, 'none.json')],
      /cannot read .*ENOENT/,
    ],
    [
      ['verify', '--secret', secret, '--header', signedNow(), '--body-file', file, '--tolerance', 'soon'],
      /--tolerance must be/,
    ],
    [['verify', '--header', signedNow(), '--body-file', file], /required option '--secret <secret>'/],
  ]);
});

test('--header "Name: value" ×3 verifies Standard Webhooks (v1 with whsec_, v1a with whpk_); --scheme requires one', async () => {
  const { standardWebhooks: v1, standardWebhooksEd25519: v1a } = signatureVectors;
  for (const [i, c] of v1.cases.entries()) {
    const args = [
      '--header',
      `webhook-id: ${c.id}`,
      '--header',
      `webhook-timestamp: ${c.timestamp}`,
      '--header',
      `webhook-signature: ${c.signature}`,
    ];
    const out = await runCliJson([
      'verify',
      '--secret',
      c.secret,
      ...args,
      '--body-file',
      bodyFile(`sw${i}.json`, c.body),
      '--now',
      String(c.timestamp),
    ]);
    assert.deepEqual(out, { valid: true, envelope: JSON.parse(c.body) });
  }
  const e = v1a.cases[0];
  const args = [
    '--header',
    `webhook-id: ${e.id}`,
    '--header',
    `webhook-timestamp: ${e.timestamp}`,
    '--header',
    `webhook-signature: ${e.signature}`,
    '--body-file',
    bodyFile('ed.json', e.body),
  ];
  const ok = await runCli([
    'verify',
    '--secret',
    e.publicKey,
    ...args,
    '--now',
    String(e.timestamp + 3),
    '--scheme',
    'standard-webhooks-ed25519',
  ]);
  assert.equal(ok.code, 0, ok.stderr);
  assert.match(ok.stdout, /^valid: order\.placed dlv_0001, signed 3s ago\n$/);
  await assertOneLineFailures([
    [
      ['verify', '--secret', v1.cases[1].secret, ...args, '--now', String(e.timestamp)],
      /invalid: no_matching_signature .*Likely cause: A secret, but no v1 signature/,
    ],
    [
      ['verify', '--secret', e.publicKey, ...args, '--now', String(e.timestamp), '--scheme', 'standard-webhooks'],
      /invalid: no_matching_signature/,
    ],
    [
      [
        'verify',
        '--secret',
        e.publicKey,
        '--header',
        't=1,v1=ab',
        '--body-file',
        bodyFile('x.json', '{}'),
        '--scheme',
        'standard-webhooks',
      ],
      /--scheme standard-webhooks needs --header 'webhook-id: …'/,
    ],
    [
      ['verify', '--secret', e.publicKey, ...args, '--scheme', 'hmac'],
      /--scheme must be one of sandbay, standard-webhooks, standard-webhooks-ed25519/,
    ],
  ]);
});
