import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Db } from '../../../src/db/database.ts';
import { Invalidations } from '../../../src/db/invalidations.ts';
import { TokenStore } from '../../../src/domain/oauth/token-store.ts';
import { createSandbox, useEngine } from '../../helpers/engine.ts';

const engine = useEngine();

/** The engine's real database, counting the queries made through it. */
function counted(db: Db): { db: Db; queries: () => number } {
  let n = 0;
  const wrapped = Object.create(db) as Db;
  wrapped.query = ((...args: Parameters<Db['query']>) => {
    n++;
    return db.query(...args);
  }) as Db['query'];
  return { db: wrapped, queries: () => n };
}

// Issue 14 §2: tokens minted by thousands of clients must not grow the cache forever, and
// the cap must not throw out the token a client is using right now (the old cache emptied itself).
test('the verified-token cache stays at its cap, dropping the least recently used token first', async () => {
  const sb = await createSandbox(engine.url);
  const { db, queries } = counted(engine.running.services.db);
  const cap = 20;
  // Its own (unstarted) invalidations: registering on the engine's would take the engine's token cache off it.
  const store = new TokenStore(db, new Invalidations(db), Date.now, cap);
  const mint = () => store.issue(db, { tenantId: sb.id, clientId: sb.clientId, scope: 'orders:read', refresh: false });
  const inUse = (await mint()).accessToken;
  assert.equal((await store.verifyAccess(inUse)).ok, true);
  const first = (await mint()).accessToken;
  assert.equal((await store.verifyAccess(first)).ok, true);

  for (let i = 0; i < cap * 3; i++) {
    assert.equal((await store.verifyAccess((await mint()).accessToken)).ok, true);
    const before = queries();
    assert.equal((await store.verifyAccess(inUse)).ok, true);
    assert.equal(queries(), before, `the token in use is still served from memory after ${i + 1} others`);
    assert.ok(store.cachedCount <= cap, `${store.cachedCount} cached, cap ${cap}`);
  }
  assert.equal(store.cachedCount, cap);

  const before = queries();
  assert.equal((await store.verifyAccess(first)).ok, true, 'an evicted token still verifies, from the database');
  assert.equal(queries(), before + 1);
});
