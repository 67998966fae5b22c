// A receiver check's ~100 probes are kept apart (issue 31): the delivery list, the HAR export and fixtures
// are the same after a check run as before it, unless --include-checks asks for them.
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { startTestReceiver, type TestReceiver } from '../helpers/check-receivers.ts';
import { runCli, runCliJson } from '../helpers/cli.ts';
import { createSandbox, useEngine, type TestSandbox } from '../helpers/engine.ts';
import { Receiver } from '../helpers/receiver.ts';
import { placeOrder, registerEndpoint, waitForDelivery } from '../helpers/webhooks.ts';

const engine = useEngine();
const sink = new Receiver();
const secret = 'whsec_probesApartSecret0123456789ab';
let checked: TestReceiver;
before(async () => {
  await sink.start();
  checked = await startTestReceiver(secret);
});
after(async () => {
  await sink.close();
  await checked.close();
});
const dir = mkdtempSync(join(tmpdir(), 'sandbay-probes-'));
after(() => rmSync(dir, { recursive: true, force: true }));
const as = (sb: TestSandbox) => ['--url', engine.url, '--token', sb.token];

async function snapshot(sb: TestSandbox, name: string, ...extra: string[]) {
  const list = await runCliJson(['deliveries', '--limit', '100', ...extra, ...as(sb)]);
  const har = join(dir, `${name}.har`);
  const fixtures = join(dir, `${name}.json`);
  assert.equal((await runCli(['deliveries', '--har', har, ...extra, ...as(sb)])).code, 0);
  assert.equal((await runCli(['fixtures', 'record', '--out', fixtures, ...extra, ...as(sb)])).code, 0);
  return {
    list: list.data.map((d: { id: string }) => d.id),
    har: JSON.parse(readFileSync(har, 'utf8')).log.entries.map((e: any) => e.request.url),
    fixtures: JSON.parse(readFileSync(fixtures, 'utf8')).fixtures.map((f: { deliveryId: string }) => f.deliveryId),
  };
}

test('a check run leaves the delivery list, the HAR and fixtures unchanged; --include-checks shows its probes', async () => {
  const sb = await createSandbox(engine.url);
  await registerEndpoint(sb, sink.url, ['order.*']);
  await placeOrder(sb);
  const [{ id }] = (await sb.api('/api/v1/webhooks/deliveries')).body.data;
  await waitForDelivery(sb, id, (d) => d.status === 'succeeded');
  const before = await snapshot(sb, 'before');
  assert.deepEqual([before.list, before.fixtures, before.har.length], [[id], [id], 1]);

  const check = await runCli(['check', checked.url, '--secret', secret, ...as(sb)]);
  assert.equal(check.code, 0, check.stdout + check.stderr);
  assert.deepEqual(await snapshot(sb, 'after'), before);

  const all = await snapshot(sb, 'all', '--include-checks');
  assert.ok(all.list.length > 10, `the probes are listed when asked for (${all.list.length})`);
  assert.ok(all.har.length > all.list.length / 2 && all.har.some((u: string) => u.startsWith(checked.url)));
  assert.ok(all.fixtures.length > 1 && all.fixtures.includes(id));
  const probe = all.list.find((d: string) => d !== id)!;
  const found = await sb.api(`/api/v1/webhooks/deliveries?search=${probe}`);
  assert.deepEqual(
    found.body.data.map((d: { id: string }) => d.id),
    [probe],
    'a search names a probe: it is found',
  );
});
