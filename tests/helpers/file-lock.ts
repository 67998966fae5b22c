import { closeSync, mkdirSync, openSync, rmSync, statSync } from 'node:fs';
import { dirname } from 'node:path';

/**
 * Runs `fn` holding a lock file, so test files running in parallel take turns at a shared build
 * (out/, dist/). A lock older than 5 minutes was left by a killed run and is taken over.
 */
export async function withFileLock<T>(lock: string, fn: () => T | Promise<T>): Promise<T> {
  mkdirSync(dirname(lock), { recursive: true });
  for (;;) {
    try {
      closeSync(openSync(lock, 'wx'));
      break;
    } catch {
      try {
        if (Date.now() - statSync(lock).mtimeMs > 300_000) rmSync(lock, { force: true });
      } catch {
        // the holder just released it
      }
      await new Promise((r) => setTimeout(r, 200));
    }
  }
  try {
    return await fn();
  } finally {
    rmSync(lock, { force: true });
  }
}
