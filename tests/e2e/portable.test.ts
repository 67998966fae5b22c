import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { expect } from './expect.ts';
import { createSandbox, useEngine, type TestSandbox } from '../helpers/engine.ts';
import { harSchemaErrors } from '../helpers/har.ts';
import { exportBytes, importBytes } from '../helpers/portable.ts';
import { Receiver } from '../helpers/receiver.ts';
import { placeOrder, registerEndpoint, waitForDelivery } from '../helpers/webhooks.ts';
import { useBrowser } from './browser.ts';
import { inspectorUrl } from './admin-sandbox.ts';

const engine = useEngine();
const browser = useBrowser();
const receiver = new Receiver();
const dir = mkdtempSync(join(tmpdir(), 'sandbay-e2e-portable-'));
before(() => receiver.start());
after(async () => {
  await receiver.close();
  rmSync(dir, { recursive: true, force: true });
});

let made: Promise<TestSandbox> | undefined;
const sandbox = () =>
  (made ??= (async () => {
    const sb = await createSandbox(engine.url, 'Inspector demo');
    await registerEndpoint(sb, receiver.url, ['order.*']);
    const order = await placeOrder(sb);
    await sb.api(`/api/v1/orders/${order.id}/cancel`, { method: 'POST' });
    for (const d of (await sb.api('/api/v1/webhooks/deliveries')).body.data)
      await waitForDelivery(sb, d.id, (x) => x.status === 'succeeded');
    return sb;
  })());

async function openDeliveries(sb: TestSandbox) {
  const page = await browser.newPage({ acceptDownloads: true });
  await page.goto(inspectorUrl(engine, `/sandboxes/${sb.id}/deliveries`));
  await expect(page.getByRole('heading', { name: 'Deliveries' })).visible();
  await expect(page.getByTestId('row-count')).text(/^2 shown/);
  return page;
}

test('"Export HAR" downloads the deliveries of the current filter as HAR 1.2', async () => {
  const page = await openDeliveries(await sandbox());
  await page.getByLabel('Topic').selectOption('order.cancelled');
  await expect(page.getByTestId('row-count')).text(/^1 shown/);
  const [download] = await Promise.all([
    page.waitForEvent('download'),
    page.getByRole('button', { name: 'Export HAR' }).click(),
  ]);
  assert.match(download.suggestedFilename(), /^deliveries-.*\.har$/);
  const path = join(dir, 'inspector.har');
  await download.saveAs(path);
  const har = JSON.parse(readFileSync(path, 'utf8'));
  assert.deepEqual(harSchemaErrors(har), []);
  assert.deepEqual(
    har.log.entries.map((e: any) => e._sandbay.topic),
    ['order.cancelled'],
  );
  assert.deepEqual(page.errors, []);
});

test('the sandbox menu exports the sandbox as a file and imports it as a new sandbox, which shows the same deliveries', async () => {
  const sb = await sandbox();
  const page = await openDeliveries(sb);
  await page.getByLabel('Sandbox menu').click();
  await page.getByRole('menuitem', { name: 'Export…' }).click();
  await page.getByLabel('Include endpoint secrets').check();
  const [download] = await Promise.all([
    page.waitForEvent('download'),
    page.getByRole('button', { name: 'Download' }).click(),
  ]);
  assert.match(download.suggestedFilename(), /^Inspector-demo-\d{4}-\d\d-\d\d\.sandbay$/);
  const file = join(dir, download.suggestedFilename());
  await download.saveAs(file);
  await expect(page.getByText(`Exported ${sb.id} with its secrets.`)).visible();

  await page.getByLabel('Sandbox menu').click();
  const [chooser] = await Promise.all([
    page.waitForEvent('filechooser'),
    page.getByRole('menuitem', { name: 'Import…' }).click(),
  ]);
  await chooser.setFiles(file);
  await expect(page.getByText('Imported "Inspector demo": 2 deliveries, 201 orders.')).visible();
  await page.waitForURL(
    (url) => /\/sandboxes\/sbx_\w+\/deliveries$/.test(url.pathname) && !url.pathname.includes(sb.id),
  );
  await expect(page.getByTestId('row-count')).text(/^2 shown/);
  const imported = new URL(page.url()).pathname.split('/')[2];
  assert.equal(await page.getByRole('combobox', { name: 'Sandbox' }).inputValue(), imported);
  assert.deepEqual(page.errors, []);
});

test('importing a file that is not a sandbox file says why in a toast, and changes nothing', async () => {
  const page = await openDeliveries(await sandbox());
  const bad = join(dir, 'notes.sandbay');
  writeFileSync(bad, 'just some notes');
  await page.getByLabel('Sandbox menu').click();
  const [chooser] = await Promise.all([
    page.waitForEvent('filechooser'),
    page.getByRole('menuitem', { name: 'Import…' }).click(),
  ]);
  await chooser.setFiles(bad);
  await expect(page.getByText(/Import of notes\.sandbay failed: This is not a Sandbay sandbox file/)).visible();
  assert.match(page.url(), /\/deliveries$/);
});

test('the Endpoints view lists the receivers an import paused, and "Resume all" enables them in one click', async () => {
  const source = await createSandbox(engine.url, 'Paused demo');
  const first = await registerEndpoint(source, `${receiver.url}/first`, ['order.*']);
  const second = await registerEndpoint(source, `${receiver.url}/second`, ['order.*']);
  const res = await importBytes(engine.url, await exportBytes(engine.url, source));
  assert.equal(res.status, 201, JSON.stringify(res.body));
  const imported = res.body.sandbox.id;

  const page = await browser.newPage();
  await page.goto(`${engine.url}/sandboxes/${imported}/endpoints?key=${engine.running.adminKey}`);
  const banner = page.getByRole('region', { name: 'Paused by the import' });
  await expect(banner).text(/2 endpoints arrived paused with this imported sandbox/);
  const listed = await banner.locator('li code').allInnerTexts();
  assert.deepEqual(listed.sort(), [first.url, second.url].sort(), 'the receiver URLs the file names');
  await banner.getByRole('button', { name: 'Resume all' }).click();
  await expect(banner).count(0);
  for (const endpoint of [first, second]) {
    const card = page.locator(`li[data-endpoint-id="${endpoint.id}"]`);
    assert.equal(await card.getByRole('switch').isChecked(), true, endpoint.url);
    await expect(card.getByTestId('endpoint-disabled')).count(0);
  }
  assert.deepEqual(page.errors, []);
});
