// A half-open LISTEN connection (docs/team-mode.md, Faults): the path to PostgreSQL goes silent without a
// close — a moved virtual IP, a dropped NAT entry. The engine's heartbeat on that connection notices within
// 30 s (SPEC §9), its caches are read through from then on, and the connection is replaced; a token
// another engine revoked is refused meanwhile.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import pg from 'pg';
import { startSandbox, type RunningSandbox } from '../../src/server/start.ts';
import { BlackHoleProxy } from '../helpers/black-hole-proxy.ts';
import { call, createSandbox } from '../helpers/engine.ts';
import { createTestDatabase, type TestDatabase } from '../helpers/postgres.ts';

/** SPEC §9's bound: a lost notification connection is noticed within this. */
const noticeWithinMs = 30_000;

let database: TestDatabase;
let proxy: BlackHoleProxy;
let a: RunningSandbox;
let b: RunningSandbox;
const waiters = new Set<(line: string) => void>();
const record = (line: string) => {
  for (const waiter of waiters) waiter(line);
};

/** Resolves when engine A logs a line matching `pattern`; rejects if it has not after `ms`. */
function logLine(pattern: RegExp, ms: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const waiter = (line: string) => {
      if (!pattern.test(line)) return;
      clearTimeout(timer);
      waiters.delete(waiter);
      resolve(line);
    };
    const timer = setTimeout(() => {
      waiters.delete(waiter);
      reject(new Error(`engine A did not log ${pattern} within ${ms} ms`));
    }, ms);
    waiters.add(waiter);
  });
}

const options = { memory: true, port: 0, logRequests: false } as const;

/** The test database's URL through `via` (started here). */
async function through(via: BlackHoleProxy): Promise<string> {
  const proxied = new URL(database.url);
  proxied.hostname = '127.0.0.1';
  proxied.port = String(await via.start());
  return proxied.href;
}

before(async () => {
  database = await createTestDatabase();
  const direct = new URL(database.url);
  proxy = new BlackHoleProxy(direct.hostname, Number(direct.port || 5432));
  // A reaches PostgreSQL through the proxy; B, "another engine", directly.
  a = await startSandbox({
    ...options,
    databaseUrl: await through(proxy),
    logger: { info: record, warn: record, error: record },
  });
  b = await startSandbox({ ...options, databaseUrl: database.url, logger: { info() {}, warn() {}, error() {} } });
});
after(async () => {
  await a?.close();
  await b?.close();
  await proxy?.close();
  await database?.drop();
});

/** The server-side view of the one LISTEN connection through `via`: its port on the proxy's side. */
async function listenPortThrough(via: BlackHoleProxy): Promise<number> {
  const admin = new pg.Client({ connectionString: database.url });
  await admin.connect();
  try {
    const { rows } = await admin.query<{ client_port: number }>(
      `select client_port from pg_stat_activity where datname = current_database() and application_name = 'sandbay-listen'`,
    );
    const throughProxy = rows.map((r) => r.client_port).filter((port) => via.carries(port));
    assert.equal(throughProxy.length, 1, 'one LISTEN connection through the proxy');
    return throughProxy[0];
  } finally {
    await admin.end();
  }
}

test('a black-holed LISTEN connection is noticed within 30 s; a token another engine revoked is refused meanwhile', async () => {
  const sandbox = await createSandbox(a.url);
  const statusOnA = async () => (await call(a.url, '/api/v1/sandbox', { token: sandbox.token })).status;
  assert.equal(await statusOnA(), 200, 'the token is cached on A');
  const lost = logLine(/listen connection lost/, noticeWithinMs);
  const restored = logLine(/listen connection restored/, 2 * noticeWithinMs);
  proxy.blackHole(await listenPortThrough(proxy));
  await lost;
  const revoked = await call(b.url, '/oauth/revoke', {
    body: { token: sandbox.token, client_id: sandbox.clientId, client_secret: sandbox.clientSecret },
  });
  assert.equal(revoked.status, 200);
  assert.equal(await statusOnA(), 401, 'A reads through its cache while it cannot trust its notifications');
  await restored;
  assert.equal(await statusOnA(), 401, 'and after its new connection is in');
});

test('an engine whose LISTEN connection has just gone half-open still shuts down', async () => {
  const direct = new URL(database.url);
  const own = new BlackHoleProxy(direct.hostname, Number(direct.port || 5432));
  try {
    const c = await startSandbox({
      ...options,
      databaseUrl: await through(own),
      logger: { info() {}, warn() {}, error() {} },
    });
    own.blackHole(await listenPortThrough(own));
    let timer: NodeJS.Timeout | undefined;
    const hung = new Promise<string>((r) => (timer = setTimeout(() => r('hung'), noticeWithinMs)));
    assert.equal(await Promise.race([c.close().then(() => 'closed'), hung]), 'closed');
    clearTimeout(timer);
  } finally {
    await own.close();
  }
});
