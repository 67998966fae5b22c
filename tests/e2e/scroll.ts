import type { Page } from 'playwright-core';

// These run inside the page. They are source text, not functions, because this project's
// Node typings have no DOM (and adding it would leak browser globals into the server code).

const toEnd = `(() => {
  const scroller = document.querySelector('[data-testid="delivery-scroller"]');
  scroller.scrollTop = scroller.scrollHeight;
  return { rows: document.querySelectorAll('[data-delivery-id]').length, count: document.querySelector('[data-testid="row-count"]')?.textContent };
})()`;

const scrollThrough = (stepPx: number) => `(async () => {
  const scroller = document.querySelector('[data-testid="delivery-scroller"]');
  const frame = () => new Promise((r) => requestAnimationFrame(r));
  scroller.scrollTop = 0;
  await frame();
  await frame();
  const longTasks = [];
  const observer = new PerformanceObserver((list) => list.getEntries().forEach((e) => longTasks.push(e.duration)));
  observer.observe({ type: 'longtask' });
  let maxRows = 0;
  let steps = 0;
  while (scroller.scrollTop + scroller.clientHeight < scroller.scrollHeight - 1) {
    scroller.scrollTop += ${Number(stepPx)};
    steps++;
    await frame();
    maxRows = Math.max(maxRows, document.querySelectorAll('[data-delivery-id]').length);
  }
  await new Promise((r) => setTimeout(r, 100));
  observer.disconnect();
  return { longTasks, maxRows, steps };
})()`;

/**
 * Scrolls the delivery list to its end until every page is loaded (`expected` rows); returns the most rows seen in the
 * DOM.
 */
export async function loadAllRows(page: Page, expected: number): Promise<number> {
  const label = `${expected.toLocaleString('en-US')} shown`;
  let maxRows = 0;
  for (let i = 0; i < 1000; i++) {
    const state = (await page.evaluate(toEnd)) as { rows: number; count?: string };
    maxRows = Math.max(maxRows, state.rows);
    if (state.count === label) return maxRows;
    await page.waitForTimeout(20);
  }
  throw new Error(`the list never reached ${label}`);
}

/**
 * A scripted scroll from top to bottom, one step per frame, with a PerformanceObserver
 * recording long tasks: returns their durations and the most rows ever in the DOM.
 */
export async function scriptedScroll(
  page: Page,
  stepPx = 1200,
): Promise<{ longTasks: number[]; maxRows: number; steps: number }> {
  return (await page.evaluate(scrollThrough(stepPx))) as { longTasks: number[]; maxRows: number; steps: number };
}

/** Starts recording, in the page, when each delivery row first shows `succeeded` (epoch ms, in `window.seen`). */
export const watchSucceeded = `(() => {
  const seen = {};
  window.seen = seen;
  new MutationObserver(() => {
    for (const el of document.querySelectorAll('[data-delivery-id]')) {
      const id = el.getAttribute('data-delivery-id');
      if (!seen[id] && el.querySelector('.badge')?.textContent === 'succeeded') seen[id] = performance.timeOrigin + performance.now();
    }
  }).observe(document.body, { subtree: true, childList: true, characterData: true });
})()`;

/** When the row of `deliveryId` first showed `succeeded` (epoch ms), waiting for it. */
export async function succeededAt(page: Page, deliveryId: string): Promise<number> {
  // A function, not source text: the page's CSP forbids eval, which waitForFunction(string) needs.
  const handle = await page.waitForFunction(
    (id) => (globalThis as { seen?: Record<string, number> }).seen?.[id],
    deliveryId,
  );
  return (await handle.jsonValue()) as number;
}
