import type { Locator } from 'playwright-core';

const timeoutMs = 10_000;

/** Polls `read` until `ok` holds, or fails with what was last seen (the UI updates asynchronously). */
async function until<T>(what: string, read: () => Promise<T>, ok: (value: T) => boolean): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let last: T | string = '(nothing read)';
  for (;;) {
    try {
      last = await read();
      if (ok(last)) return;
    } catch (err) {
      last = `error: ${(err as Error).message.split('\n')[0]}`;
    }
    if (Date.now() > deadline) throw new Error(`${what}; last saw ${JSON.stringify(last)}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

const matches = (value: string, expected: string | RegExp) =>
  typeof expected === 'string' ? value.trim() === expected : expected.test(value);

/** Waiting assertions on a locator, in the spirit of @playwright/test's expect (which playwright-core lacks). */
export function expect(locator: Locator) {
  return {
    visible: () => locator.first().waitFor({ state: 'visible', timeout: timeoutMs }),
    text: (expected: string | RegExp) =>
      until(
        `expected ${locator} to have text ${expected}`,
        () => locator.first().innerText({ timeout: 1000 }),
        (v) => matches(v, expected),
      ),
    attribute: (name: string, expected: string) =>
      until(
        `expected ${locator} to have ${name}="${expected}"`,
        () => locator.first().getAttribute(name, { timeout: 1000 }),
        (v) => v === expected,
      ),
    value: (expected: string) =>
      until(
        `expected ${locator} to have value ${expected}`,
        () => locator.first().inputValue({ timeout: 1000 }),
        (v) => v === expected,
      ),
    count: (expected: number) =>
      until(
        `expected ${expected} of ${locator}`,
        () => locator.count(),
        (n) => n === expected,
      ),
  };
}
