import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { chromium } from 'playwright-core';
import { createSandbox, useEngine } from '../helpers/engine.ts';
import { Receiver } from '../helpers/receiver.ts';
import { placeOrder, registerEndpoint, waitForDelivery } from '../helpers/webhooks.ts';
import { chromiumArgs, chromiumPath } from './browser.ts';

const engine = useEngine();
const scratch = mkdtempSync(join(tmpdir(), 'sandbay-har-'));
after(() => rmSync(scratch, { recursive: true, force: true }));

test("Chromium opens the exported HAR: Playwright's HAR reader answers each recorded request with the recorded response", async () => {
  const receiver = await new Receiver().start();
  receiver.behaviour = {
    kind: 'status',
    status: 202,
    body: 'accepted by the receiver',
    headers: { 'x-receiver': 'demo' },
  };
  const sb = await createSandbox(engine.url);
  await registerEndpoint(sb, receiver.url, ['order.placed']);
  await registerEndpoint(sb, 'http://127.0.0.1:9/refused', ['order.placed']);
  await placeOrder(sb);
  const list = (await sb.api('/api/v1/webhooks/deliveries')).body.data;
  for (const d of list) await waitForDelivery(sb, d.id, (x) => x.attemptCount === 1);
  const har = (await sb.api('/api/v1/webhooks/deliveries/export?format=har')).body;
  const file = join(scratch, 'deliveries.har');
  writeFileSync(file, JSON.stringify(har));
  await receiver.close(); // from here on only the HAR can answer

  const entry = har.log.entries.find((e: any) => e.response.status === 202);
  const origin = new URL(entry.request.url).origin;
  const browser = await chromium.launch({ executablePath: chromiumPath(), args: chromiumArgs });
  try {
    const context = await browser.newContext();
    await context.routeFromHAR(file, { notFound: 'abort' });
    const page = await context.newPage();
    // A page on the receiver's origin (served here, not from the HAR), so the POST is same-origin.
    await page.route(`${origin}/`, (route) =>
      route.fulfill({ contentType: 'text/html', body: '<title>receiver</title>' }),
    );
    await page.goto(`${origin}/`);
    const headers = Object.fromEntries(
      entry.request.headers
        .filter((h: any) => /^(content-type|x-service-)/.test(h.name))
        .map((h: any) => [h.name, h.value]),
    );
    const answer = await page.evaluate(
      async ({ url, body, headers }) => {
        const res = await fetch(url, { method: 'POST', body, headers });
        return { status: res.status, body: await res.text(), receiver: res.headers.get('x-receiver') };
      },
      { url: entry.request.url, body: entry.request.postData.text, headers },
    );
    assert.deepEqual(answer, { status: 202, body: 'accepted by the receiver', receiver: 'demo' });
  } finally {
    await browser.close();
  }
});
