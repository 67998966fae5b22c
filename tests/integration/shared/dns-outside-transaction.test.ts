// No request holds a database connection across a network wait (SPEC §9, issue 28): a keyed request
// (Idempotency-Key: handler and stored answer in one transaction) whose endpoint URL the outbound
// policy is still resolving must not keep the database from another sandbox. The resolver is the one
// thing faked (DNS is not ours): its lookups hang until the test lets them go, and the other
// sandbox's read must be answered while they hang. Before the transaction began lazily, the keyed
// requests held PGlite's one connection (or the whole PostgreSQL pool) until the lookups timed out.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createSandbox, useEngine } from '../../helpers/engine.ts';
import { operatorKey } from '../../helpers/session.ts';

const poolSize = 2;

/** A resolver whose every lookup waits for release(); `started` resolves once `count` lookups are waiting. */
function hangingResolver() {
  let letGo!: () => void;
  const gate = new Promise<void>((resolve) => (letGo = resolve));
  const waiting: (() => void)[] = [];
  let pending = 0;
  const lookup = async (_hostname: string) => {
    pending++;
    for (const notify of waiting.splice(0)) notify();
    await gate;
    return [{ address: '93.184.216.34', family: 4 }]; // a public address: the registration is allowed
  };
  const started = async (count: number) => {
    while (pending < count) await new Promise<void>((resolve) => waiting.push(resolve));
  };
  return { lookup, started, release: () => letGo() };
}

const resolver = hangingResolver();
const engine = useEngine({
  publicUrl: 'http://sandbay.test:8080',
  adminKey: operatorKey,
  outboundLookup: resolver.lookup,
  poolSize,
});

test("keyed registrations waiting on DNS leave the database free: another sandbox's read is answered meanwhile", async () => {
  const [waiter, other] = [
    await createSandbox(engine.url, 'waiter', operatorKey),
    await createSandbox(engine.url, 'other', operatorKey),
  ];
  const events: string[] = [];
  // As many keyed requests as the pool has connections (PGlite has one): each would hold one.
  const keyed = Array.from({ length: poolSize }, (_, i) =>
    waiter
      .api('/api/v1/webhooks/endpoints', {
        body: { url: `http://slow-${i}.test/hook`, topics: ['*'] },
        headers: { 'idempotency-key': `slow-dns-${i}` },
      })
      .then((res) => {
        events.push(`keyed ${res.status}`);
        return res;
      }),
  );
  await resolver.started(poolSize);
  const read = await other.api('/api/v1/orders?limit=1');
  events.push(`other ${read.status}`);
  resolver.release();
  for (const res of await Promise.all(keyed)) assert.equal(res.status, 201, JSON.stringify(res.body));
  assert.deepEqual(events, ['other 200', ...keyed.map(() => 'keyed 201')], 'the read was answered while DNS hung');
});
