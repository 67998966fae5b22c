// Issue 4's figures, measured in Debian's Chromium against an in-process engine: first paint
// of the inspector, how soon a new delivery shows in the open list after its attempt, and a
// scripted scroll through 10,000 loaded deliveries (long tasks, rows in the DOM).
import { chromium, type Browser, type Page } from 'playwright-core';
import { startSandbox, type RunningSandbox } from '../../src/server/start.ts';
import { buildOnce, chromiumArgs, chromiumPath } from '../e2e/browser.ts';
import { insertDeliveries } from '../e2e/bulk.ts';
import { loadAllRows, scriptedScroll, succeededAt, watchSucceeded } from '../e2e/scroll.ts';
import { Receiver } from '../helpers/receiver.ts';
import { percentile, type BenchRow, sectionRows } from './table.ts';

const row = sectionRows('ui');

async function createSandbox(engine: RunningSandbox): Promise<string> {
  const res = await fetch(`${engine.url}/api/v1/sandboxes`, { method: 'POST' });
  return ((await res.json()) as { sandbox: { id: string } }).sandbox.id;
}

const adminFetch = (engine: RunningSandbox, sandboxId: string, path: string, body: unknown) =>
  fetch(`${engine.url}${path}`, {
    method: 'POST',
    body: JSON.stringify(body),
    headers: {
      authorization: `Bearer ${engine.adminKey}`,
      'sandbay-sandbox': sandboxId,
      'content-type': 'application/json',
    },
  }).then((r) => r.json() as Promise<Record<string, string>>);

async function openDeliveries(browser: Browser, engine: RunningSandbox, sandboxId: string): Promise<Page> {
  const page = await browser.newPage({ viewport: { width: 1440, height: 900 } });
  await page.goto(`${engine.url}/sandboxes/${sandboxId}/deliveries?key=${engine.adminKey}`);
  await page.getByTestId('connection').getByText('Live').waitFor();
  return page;
}

/** First contentful paint of a cold page load of the deliveries view. */
async function firstPaint(
  browser: Browser,
  engine: RunningSandbox,
  sandboxId: string,
  runs: number,
): Promise<number[]> {
  const samples: number[] = [];
  for (let i = 0; i < runs; i++) {
    const context = await browser.newContext({ viewport: { width: 1440, height: 900 } });
    const page = await context.newPage();
    await page.goto(`${engine.url}/sandboxes/${sandboxId}/deliveries?key=${engine.adminKey}`);
    await page.getByRole('heading', { name: 'Deliveries', exact: true }).waitFor();
    samples.push(
      (await page.evaluate("performance.getEntriesByName('first-contentful-paint')[0]?.startTime ?? NaN")) as number,
    );
    await context.close();
  }
  return samples;
}

/** From the receiver answering an attempt to the row showing `succeeded` in the open list. */
async function liveLatency(
  browser: Browser,
  engine: RunningSandbox,
  sandboxId: string,
  count: number,
): Promise<number[]> {
  const receiver = await new Receiver().start();
  try {
    const endpoint = await adminFetch(engine, sandboxId, '/api/v1/webhooks/endpoints', {
      url: receiver.url,
      topics: ['*'],
    });
    const page = await openDeliveries(browser, engine, sandboxId);
    await page.evaluate(watchSucceeded);
    const samples: number[] = [];
    for (let i = 0; i < count; i++) {
      const before = receiver.received.length;
      const sent = await adminFetch(engine, sandboxId, '/api/v1/webhooks/test', {
        topic: 'order.placed',
        endpoint: endpoint.id,
      });
      const [got] = (await receiver.waitFor(before + 1)).slice(before);
      // Receiver.at is this process's performance.now(); the page reports epoch milliseconds.
      samples.push((await succeededAt(page, sent.deliveryId)) - (performance.timeOrigin + got.at));
      await new Promise((r) => setTimeout(r, 50));
    }
    await page.close();
    return samples;
  } finally {
    await receiver.close();
  }
}

/** The `ui` section of `npm run bench`. */
export async function run(): Promise<BenchRow[]> {
  await buildOnce();
  const engine = await startSandbox({ memory: true, port: 0, logRequests: false });
  const browser = await chromium.launch({ executablePath: chromiumPath(), args: chromiumArgs });
  try {
    const rows: BenchRow[] = [];
    const paint = await firstPaint(browser, engine, await createSandbox(engine), 10);
    rows.push(
      row('inspector first paint p50', percentile(paint, 50), 'ms', '≤ 1000 ms', percentile(paint, 50) <= 1000),
    );
    rows.push(
      row('inspector first paint p99', percentile(paint, 99), 'ms', '≤ 1000 ms', percentile(paint, 99) <= 1000),
    );

    const latency = await liveLatency(browser, engine, await createSandbox(engine), 40);
    rows.push(
      row(
        'new delivery visible after its attempt p50',
        percentile(latency, 50),
        'ms',
        '≤ 250 ms',
        percentile(latency, 50) <= 250,
      ),
    );
    rows.push(
      row(
        'new delivery visible after its attempt p99',
        percentile(latency, 99),
        'ms',
        '≤ 250 ms',
        percentile(latency, 99) <= 250,
      ),
    );

    const big = await createSandbox(engine);
    await insertDeliveries(engine.services.db, big, 10_000);
    const page = await openDeliveries(browser, engine, big);
    await page.locator('[data-delivery-id]').first().waitFor();
    const loadStarted = performance.now();
    await loadAllRows(page, 10_000);
    rows.push(row('load 10,000 deliveries into the list (100 pages)', performance.now() - loadStarted, 'ms'));
    const scroll = await scriptedScroll(page);
    const longest = Math.max(0, ...scroll.longTasks);
    rows.push(row('scripted scroll over 10,000 rows: longest task', longest, 'ms', '≤ 50 ms', longest <= 50));
    rows.push(
      row(
        'scripted scroll over 10,000 rows: long tasks',
        scroll.longTasks.length,
        'tasks',
        '0',
        scroll.longTasks.length === 0,
      ),
    );
    rows.push(
      row(
        'scripted scroll over 10,000 rows: most rows in the DOM',
        scroll.maxRows,
        'rows',
        '< 100',
        scroll.maxRows < 100,
      ),
    );
    return rows;
  } finally {
    await browser.close();
    await engine.close();
  }
}
