import assert from 'node:assert/strict';
import { test } from 'node:test';
import { maxCachedTokens } from '../../src/domain/oauth/token-store.ts';
import { keptPerCatcher } from '../../src/webhooks/catcher/request-log.ts';
import { responseExcerptBytes } from '../../src/webhooks/sender.ts';
import { createTestDatabase, testDriver } from '../helpers/postgres.ts';
import { fullSoak, runSoak } from '../soak/soak.ts';

// Issue 14 §2: `npm run soak` in small, so the suite keeps it working. Memory figures belong
// to the full run (README); here the ledger must balance and the capped structures stay capped.
test('a short soak loses no delivery and keeps catcher logs, the token cache and the stream at their caps', async () => {
  const database = testDriver() === 'pg' ? await createTestDatabase() : undefined;
  const lines: string[] = [];
  try {
    const report = await runSoak({
      ...fullSoak,
      durationMs: 20_000,
      ordersPerSecond: 4,
      catcherHitsPerSecond: 20,
      tokensPerSecond: 2,
      advanceEveryMs: 5_000,
      clockStepSeconds: 75 * 60,
      resetEveryMs: 7_000,
      reportEveryMs: 10_000,
      attemptTimeoutMs: 500,
      databaseUrl: database?.url,
      print: (line) => lines.push(line),
    });
    const { ledger, bounded } = report;
    const context = lines.join('\n');
    assert.ok(ledger.emitted > 0, context);
    assert.equal(ledger.lost, 0, context);
    assert.ok(ledger.attempts > ledger.emitted, `retries ran\n${context}`);
    assert.equal(
      bounded.maxCatcherLog,
      keptPerCatcher,
      `catchers got more than they keep, and keep no more\n${context}`,
    );
    assert.equal(
      bounded.maxAttemptBody,
      responseExcerptBytes,
      `a 64 KiB error page is kept as its first 4 KiB\n${context}`,
    );
    assert.ok(bounded.cachedTokens > 0 && bounded.cachedTokens <= maxCachedTokens, context);
    assert.ok(bounded.sseSubscribers <= fullSoak.sseClients, context);
  } finally {
    await database?.drop();
  }
});
