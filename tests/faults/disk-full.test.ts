// The laptop's fault: the disk under a PGlite data dir fills up (a 160 MB tmpfs, filled by another
// file). Writes answer 507 insufficient_storage (or 503), never a 500; reads go on; nothing committed is
// lost (checked after a restart on the same data dir); once space returns, writes work again.
// Mounting a tmpfs needs root (CI runs as root).
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { closeSync, mkdtempSync, openSync, rmSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { createSandbox } from '../helpers/engine.ts';
import { serveReady, type ServeProcess } from '../helpers/process.ts';
import { registerEndpoint } from '../helpers/webhooks.ts';
import { assertAlive, LedgerReceiver, timedCall } from './harness.ts';

const mountPoint = mkdtempSync(join(tmpdir(), 'sandbay-full-disk-'));
const running: ServeProcess[] = [];
let mounted = false;
after(async () => {
  for (const p of running) if (p.child.exitCode === null) p.child.kill('SIGKILL');
  await Promise.all(running.map((p) => p.exited));
  if (mounted) execFileSync('umount', ['-l', mountPoint]);
  rmSync(mountPoint, { recursive: true, force: true });
});

const order = {
  customerId: 'cus_0001',
  items: [{ variantId: 'var_0001', quantity: 1 }],
  shippingAddress: { city: 'İzmir', district: 'Konak' },
};

/** Writes a file until the disk is full; returns a function that frees the space again. */
function fillDisk(dir: string): () => void {
  const filler = join(dir, 'filler');
  const fd = openSync(filler, 'w');
  const chunk = Buffer.alloc(1 << 20, 1);
  try {
    for (;;) writeSync(fd, chunk);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOSPC') throw err;
  } finally {
    closeSync(fd);
  }
  return () => rmSync(filler);
}

test('a full disk under a PGlite data dir: 2xx/4xx/503/507 only, nothing committed lost, writes work again once space returns', async (t) => {
  assert.equal(process.getuid?.(), 0, 'mounting the small tmpfs this test fills needs root');
  execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=160m', 'tmpfs', mountPoint]);
  mounted = true;
  const dataDir = join(mountPoint, 'data');
  const receiver = await new LedgerReceiver().start();
  t.after(() => receiver.close());
  let engine = await serveReady(['--data-dir', dataDir, '--port', '0']);
  running.push(engine);
  const sb = await createSandbox(engine.url);
  await registerEndpoint(sb, receiver.url, ['order.placed']);
  const committed: string[] = [];
  const statuses: Record<number, number> = {};
  const place = async () => {
    const res = await timedCall(engine.url, '/api/v1/orders', sb.token, 'POST', order);
    statuses[res.status] = (statuses[res.status] ?? 0) + 1;
    if (res.status === 201) committed.push(res.body.id);
    return res;
  };
  for (let i = 0; i < 20; i++) await place();

  const free = fillDisk(mountPoint);
  const reads: Record<number, number> = {};
  for (let i = 0; i < 135; i++) {
    await place();
    const read = await timedCall(engine.url, '/api/v1/orders?limit=5', sb.token);
    reads[read.status] = (reads[read.status] ?? 0) + 1;
  }
  t.diagnostic(`with the disk full: writes ${JSON.stringify(statuses)}, reads ${JSON.stringify(reads)}`);
  const allowed = (s: number) => (s >= 200 && s < 500) || s === 503 || s === 507;
  assert.ok(Object.keys(statuses).map(Number).every(allowed), `writes answered ${JSON.stringify(statuses)}`);
  assert.ok(Object.keys(reads).map(Number).every(allowed), `reads answered ${JSON.stringify(reads)}`);
  assert.ok((statuses[507] ?? 0) > 0, 'the full disk was met (507 insufficient_storage)');
  assertAlive([engine]);

  free();
  const again = await place();
  assert.equal(again.status, 201, 'writes work again once space returns');

  engine.child.kill('SIGTERM');
  await engine.exited;
  engine = await serveReady(['--data-dir', dataDir, '--port', '0']);
  running.push(engine);
  const missing: string[] = [];
  for (const id of committed)
    if ((await timedCall(engine.url, `/api/v1/orders/${id}`, sb.token)).status !== 200) missing.push(id);
  assert.deepEqual(missing, [], `every one of the ${committed.length} committed orders is still there after a restart`);
});
