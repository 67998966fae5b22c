import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { verifyWebhook } from '../../src/receiver/index.ts';
import { assertOneLineFailure, CliProcess, runCli, runCliJson } from '../helpers/cli.ts';
import { createSandbox, useEngine, type TestSandbox } from '../helpers/engine.ts';
import { harSchemaErrors } from '../helpers/har.ts';
import { Receiver } from '../helpers/receiver.ts';
import { placeOrder, registerEndpoint, waitForDelivery } from '../helpers/webhooks.ts';

const engine = useEngine({ maxImportBytes: 64 * 2 ** 20 });
const receiver = new Receiver();
const dir = mkdtempSync(join(tmpdir(), 'sandbay-cli-portable-'));
before(() => receiver.start());
after(async () => {
  await receiver.close();
  rmSync(dir, { recursive: true, force: true });
});

const as = (sb: TestSandbox) => ['--url', engine.url, '--token', sb.token];

async function withDeliveries(): Promise<TestSandbox> {
  const sb = await createSandbox(engine.url, 'CLI demo');
  await registerEndpoint(sb, receiver.url, ['order.*']);
  const order = await placeOrder(sb);
  await sb.api(`/api/v1/orders/${order.id}/cancel`, { method: 'POST' });
  for (const d of (await sb.api('/api/v1/webhooks/deliveries')).body.data)
    await waitForDelivery(sb, d.id, (x) => x.status === 'succeeded');
  return sb;
}

test('sandbay export writes the file and sandbay import makes a new sandbox of it, saying what it did', async () => {
  const sb = await withDeliveries();
  const file = join(dir, 'demo.sandbay');
  const exported = await runCli(['export', '--out', file, '--notes', 'Acme checkout demo', ...as(sb)]);
  assert.equal(exported.code, 0, exported.stderr);
  assert.match(
    exported.stdout,
    new RegExp(
      `^Wrote ${file.replace(/[/.]/g, '\\$&')} \\(\\d+ kB\\): sandbox ${sb.id} "CLI demo"\\nSecrets omitted: an import issues new endpoint secrets`,
    ),
  );
  const imported = await runCli(['import', file, '--url', engine.url]);
  assert.equal(imported.code, 0, imported.stderr);
  const id = /as sandbox (sbx_\w+) "CLI demo"/.exec(imported.stdout)?.[1];
  assert.ok(id, imported.stdout);
  assert.match(imported.stdout, /201 orders, 2 events, 2 deliveries, 2 attempts/);
  assert.match(imported.stdout, /secrets: the file had none, so new ones were issued/);
  assert.match(imported.stdout, /whe_\w+ http:\/\/127\.0\.0\.1:\d+\/hook signs with a new secret/);
  assert.match(imported.stdout, /signature: signed by this Sandbay/);
  assert.match(
    imported.stdout,
    /nothing was sent; enable an endpoint to resume its deliveries\):\n {4}\(sandbay resume-imported --sandbox sbx_\w+ enables them all in one go\)\n {4}whe_\w+ http:\/\/127\.0\.0\.1:\d+\/hook \(0 pending\)/,
  );
  assert.match(imported.stdout, /notes: Acme checkout demo/);
  assert.match(imported.stdout, new RegExp(`inspector: ${engine.url}/sandboxes/${id}/deliveries`));
  const token = /access token: (\S+)/.exec(imported.stdout)![1];
  const me: any = await (
    await fetch(`${engine.url}/api/v1/sandbox`, { headers: { authorization: `Bearer ${token}` } })
  ).json();
  assert.equal(me.notes, 'Acme checkout demo');
  assert.equal(me.counts.orders, 201);
});

test('sandbay import --json and --name; with --include-secrets the endpoint secrets come along', async () => {
  const sb = await withDeliveries();
  const file = join(dir, 'secrets.sandbay');
  assert.equal((await runCli(['export', '--out', file, '--include-secrets', ...as(sb)])).code, 0);
  const result = await runCliJson(['import', file, '--name', 'Renamed', '--url', engine.url]);
  assert.equal(result.sandbox.name, 'Renamed');
  assert.equal(result.report.secrets, 'imported');
  assert.deepEqual(result.report.newSecrets, []);
  assert.equal(result.webhookTestSecret, sb.webhookTestSecret);
});

test('sandbay resume-imported enables every endpoint the import paused, in one command', async () => {
  const sb = await withDeliveries();
  const file = join(dir, 'resume.sandbay');
  assert.equal((await runCli(['export', '--out', file, ...as(sb)])).code, 0);
  const imported = await runCliJson(['import', file, '--url', engine.url]);
  const [paused] = imported.report.receivers.endpoints;
  const asImported = ['--url', engine.url, '--token', imported.credentials.accessToken];
  const resumed = await runCli(['resume-imported', ...asImported]);
  assert.equal(resumed.code, 0, resumed.stderr);
  assert.equal(resumed.stdout, `enabled ${paused.endpointId} ${paused.url}: its pending deliveries resume\n`);
  const endpoint: any = await (
    await fetch(`${engine.url}/api/v1/webhooks/endpoints/${paused.endpointId}`, {
      headers: { authorization: `Bearer ${imported.credentials.accessToken}` },
    })
  ).json();
  assert.equal(endpoint.enabled, true);
  assert.equal((await runCli(['resume-imported', ...asImported])).stdout, 'No endpoint is paused by an import.\n');
  assert.deepEqual(await runCliJson(['resume-imported', ...asImported]), { enabled: [], refused: [] });
});

test('a damaged or oversized file: one line naming the problem, exit 1, no half file left by a failed export', async () => {
  const bad = join(dir, 'bad.sandbay');
  writeFileSync(bad, Buffer.from('not a sandbox file'));
  assertOneLineFailure(
    await runCli(['import', bad, '--url', engine.url]),
    /This is not a Sandbay sandbox file: it is not gzip-compressed .*Nothing was imported\. \(import_not_sandbox_file\)$/,
  );
  // 2 GiB that take no disk: a sparse file, refused by its size before it is read.
  const huge = join(dir, 'huge.sandbay');
  execFileSync('truncate', ['-s', '2G', huge]);
  assertOneLineFailure(
    await runCli(['import', huge, '--url', engine.url]),
    /over the import limit of 67108864 bytes \(64 MiB\)\. Nothing was imported\. \(payload_too_large\)$/,
  );
  const sb = await createSandbox(engine.url);
  const out = join(dir, 'never.sandbay');
  assertOneLineFailure(await runCli(['export', '--out', out, '--url', engine.url, '--token', 'nope']), /invalid_token/);
  assert.throws(() => readFileSync(out));
  assert.throws(() => readFileSync(`${out}.part`));
  assert.equal((await runCli(['export', '--out', join(dir, 'ok.sandbay'), ...as(sb)])).code, 0);
});

test('sandbay deliveries --har writes HAR 1.2 for the filter', async () => {
  const sb = await withDeliveries();
  const file = join(dir, 'out.har');
  const result = await runCli(['deliveries', '--har', file, '--topic', 'order.cancelled', ...as(sb)]);
  assert.equal(result.code, 0, result.stderr);
  assert.match(result.stdout, /Wrote .*out\.har \(\d+ (kB|B)\): open it in Chrome DevTools/);
  const har = JSON.parse(readFileSync(file, 'utf8'));
  assert.deepEqual(harSchemaErrors(har), []);
  assert.equal(har.log.entries.length, 1);
  assert.equal(har.log.entries[0]._sandbay.topic, 'order.cancelled');
});

test('sandbay fixtures record and sandbay replay: the receiver verifies each with its own secret; exit codes say how it went', async () => {
  const sb = await withDeliveries();
  const file = join(dir, 'fixtures.json');
  const recorded = await runCli(['fixtures', 'record', '--topics', 'order.*', '--out', file, ...as(sb)]);
  assert.equal(recorded.code, 0, recorded.stderr);
  assert.match(recorded.stdout, /^Wrote 2 fixtures to /);
  const secret = 'whsec_myReceiverSecret';
  const verified: string[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      try {
        verified.push(
          verifyWebhook({ payload: Buffer.concat(chunks), header: String(req.headers['x-service-signature']), secret })
            .topic,
        );
        res.writeHead(200).end('thanks');
      } catch {
        res.writeHead(401).end('bad signature');
      }
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  const to = `127.0.0.1:${(server.address() as AddressInfo).port}/webhooks`;
  try {
    const good = await runCli(['replay', file, '--to', to, '--secret', secret]);
    assert.equal(good.code, 0, good.stderr);
    assert.match(
      good.stdout,
      /^STATUS\s+MS\s+FIXTURE\s+ANSWER\n200\s+\d+\s+order\.placed dlv_\w+\s+thanks\n200\s+\d+\s+order\.cancelled dlv_\w+\s+thanks\nAll 2 answered 2xx\.\n$/,
    );
    assert.deepEqual(verified, ['order.placed', 'order.cancelled']);
    const refused = await runCli(['replay', file, '--to', to, '--secret', 'whsec_other', '--json']);
    assert.equal(refused.code, 1);
    assert.deepEqual(
      JSON.parse(refused.stdout).map((r: any) => [r.status, r.body]),
      [
        [401, 'bad signature'],
        [401, 'bad signature'],
      ],
    );
  } finally {
    server.close();
  }
  const unreachable = await runCli(['replay', file, '--to', to, '--secret', secret]);
  assert.equal(unreachable.code, 2);
  assertOneLineFailure(
    await runCli(['replay', join(dir, 'missing.json'), '--to', to, '--secret', secret]),
    /ENOENT|no such file/,
  );
});

test('sandbay fixtures record --follow records the deliveries made while it runs, and no receiver check probe', async () => {
  const sb = await withDeliveries();
  const file = join(dir, 'followed.json');
  const cli = new CliProcess([
    'fixtures',
    'record',
    '--follow',
    '--count',
    '1',
    '--topics',
    'order.placed',
    '--out',
    file,
    ...as(sb),
  ]);
  await cli.waitForLine(/^Recording order\.placed, 1 deliveries/);
  // A check's probes (order.placed among them) go by first: none of them is a fixture.
  const check = await sb.api('/api/v1/webhooks/checks', {
    body: { url: receiver.url, secret: 'whsec_followedCheckSecret0000000000' },
  });
  assert.equal(check.status, 202, JSON.stringify(check.body));
  for (
    let run = check.body;
    run.status === 'running';
    run = (await sb.api(`/api/v1/webhooks/checks/${check.body.id}`)).body
  )
    await new Promise((r) => setTimeout(r, 50));
  await new Promise((r) => setTimeout(r, 600)); // the recorder polls every 250 ms: it has seen the probes
  const order = await placeOrder(sb);
  const result = await cli.exited;
  assert.equal(result.code, 0, result.stderr);
  const doc = JSON.parse(readFileSync(file, 'utf8'));
  assert.equal(doc.fixtures.length, 1);
  assert.equal(doc.source.sandboxId, sb.id);
  assert.equal(doc.fixtures[0].topic, 'order.placed');
  assert.equal(JSON.parse(doc.fixtures[0].body).data.orderId, order.id, 'the order placed, not a probe of the check');
});
