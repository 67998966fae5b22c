// Idempotency-Key claims live in the database: one handler run per key across processes, the
// write and its stored response commit together, no secret is stored, old keys are purged.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { withAmbientTransactions } from '../../../src/db/ambient.ts';
import { IdempotencyKeys, type IdempotencyMode } from '../../../src/server/middleware/idempotency.ts';
import type { RouteResult } from '../../../src/server/route.ts';
import { ApiError } from '../../../src/shared/problem.ts';
import { createSandbox, problem, useEngine } from '../../helpers/engine.ts';
import { orderBody, orderCount } from '../../helpers/orders.ts';
import { waitForDelivery } from '../../helpers/webhooks.ts';

const errors: string[] = [];
const engine = useEngine({ logger: { info() {}, warn() {}, error: (line) => void errors.push(line) } });
const withKey = (key: string) => ({ 'idempotency-key': key });
const db = () => engine.running.services.db;
const storedRows = (tenantId: string, key: string) =>
  db().query<{ status: number | null; response: string | null; omitted: string[] | null }>(
    'select status, response, omitted from idempotency_keys where tenant_id = $1 and key = $2',
    [tenantId, key],
  );

/** A second engine process's view of the same database: its own IdempotencyKeys, nothing shared in memory. */
function anotherProcess(now: () => number = Date.now) {
  return new IdempotencyKeys(withAmbientTransactions(db()), { realNow: now });
}
const request = (tenantId: string, key: string, body: unknown = { n: 1 }) => ({
  tenantId,
  method: 'POST',
  path: '/api/v1/probe',
  key,
  body,
});

test('an invitation token is never stored: a replay omits it and says so in Idempotent-Omitted', async () => {
  const sb = await createSandbox(engine.url);
  const invite = { email: 'ada@example.com', name: 'Ada', role: 'support' };
  const first = await sb.api('/api/v1/staff', { body: invite, headers: withKey('invite') });
  assert.equal(first.status, 201);
  assert.match(first.body.invitationToken, /^inv_/);
  const [row] = await storedRows(sb.id, 'invite');
  assert.ok(!row.response!.includes(first.body.invitationToken), 'the stored response holds no token');
  assert.deepEqual(row.omitted, ['invitationToken']);

  const replay = await sb.api('/api/v1/staff', { body: invite, headers: withKey('invite') });
  assert.equal(replay.status, 201);
  assert.equal(replay.headers.get('idempotent-replayed'), 'true');
  assert.equal(replay.headers.get('idempotent-omitted'), 'invitationToken');
  const { invitationToken: _token, ...withoutToken } = first.body;
  assert.deepEqual(replay.body, withoutToken);

  const resent = await sb.api(`/api/v1/staff/${first.body.id}/invitation`, {
    method: 'POST',
    headers: withKey('resend'),
  });
  const [resendRow] = await storedRows(sb.id, 'resend');
  assert.ok(!resendRow.response!.includes(resent.body.invitationToken));
  const accepted = await sb.api(`/api/v1/staff/${first.body.id}/accept`, {
    body: { token: resent.body.invitationToken },
  });
  assert.equal(accepted.body.status, 'active', 'the token shown once still works');
  assert.equal(first.headers.get('idempotent-omitted'), null, 'the first response is complete');
});

test('the write and its stored response are one transaction: when the store fails, a retry writes once', async () => {
  const sb = await createSandbox(engine.url);
  // A real failure of the database at the store, after the handler wrote the order.
  await db().exec(`
    create function refuse_store() returns trigger language plpgsql as $$ begin raise exception 'disk full (simulated)'; end $$;
    create trigger refuse_store before update on idempotency_keys for each row
      when (new.key = 'store-fails' and new.response is not null) execute function refuse_store();`);
  try {
    const failed = await sb.api('/api/v1/orders', {
      body: orderBody(),
      headers: withKey('store-fails'),
      faultInjected: true,
    });
    problem(failed, 500, 'internal_error');
    assert.ok(
      errors.some((line) => line.includes('disk full (simulated)')),
      'the failure is logged',
    );
    assert.equal(await orderCount(engine.running, sb.id), 200, "the handler's order was rolled back with the store");
    assert.deepEqual(await storedRows(sb.id, 'store-fails'), [], 'and the claim was given up');
  } finally {
    await db().exec('drop trigger refuse_store on idempotency_keys; drop function refuse_store();');
  }
  const retry = await sb.api('/api/v1/orders', { body: orderBody(), headers: withKey('store-fails') });
  assert.equal(retry.status, 201);
  const again = await sb.api('/api/v1/orders', { body: orderBody(), headers: withKey('store-fails') });
  assert.deepEqual([again.headers.get('idempotent-replayed'), again.body.id], ['true', retry.body.id]);
  assert.equal(await orderCount(engine.running, sb.id), 201, 'one order');
});

test('two processes given one key run the handler once: the other waits for it, answers 409 in use, then replays', async () => {
  const sb = await createSandbox(engine.url);
  const [a, b] = [anotherProcess(), anotherProcess()];
  let runs = 0;
  const handler = async (): Promise<RouteResult> => ({ status: 201, body: { run: ++runs } });
  const [one, two] = await Promise.all([a.run(request(sb.id, 'k'), handler), b.run(request(sb.id, 'k'), handler)]);
  assert.equal(runs, 1);
  assert.deepEqual([one.body, two.body], [{ run: 1 }, { run: 1 }]);

  // A handler that awaits the network runs outside any transaction: the other process sees its claim.
  let release!: () => void;
  const slow = async (): Promise<RouteResult> => {
    await new Promise<void>((resolve) => {
      release = resolve;
    });
    return { body: { run: ++runs } };
  };
  const network: IdempotencyMode = { atomic: false };
  const first = a.run(request(sb.id, 'slow'), slow, network);
  while (!release) await new Promise((resolve) => setTimeout(resolve, 5));
  await assert.rejects(
    b.run(request(sb.id, 'slow'), slow, network),
    (err: ApiError) => err.code === 'idempotency_key_in_use',
  );
  release();
  assert.deepEqual((await first).body, { run: 2 });
  const replay = await b.run(request(sb.id, 'slow'), slow, network);
  assert.deepEqual([replay.body, replay.headers?.['Idempotent-Replayed'], runs], [{ run: 2 }, 'true', 2]);
});

test("a claim is never stuck: a failed request gives it up, a dead process's claim is taken over after 5 minutes", async () => {
  const sb = await createSandbox(engine.url);
  const keys = anotherProcess();
  let runs = 0;
  await assert.rejects(
    keys.run(request(sb.id, 'boom'), async () => {
      runs++;
      throw new Error('bug');
    }),
    /bug/,
  );
  const retried = await keys.run(request(sb.id, 'boom'), async () => ({ body: { run: ++runs } }));
  assert.deepEqual([retried.body, runs], [{ run: 2 }, 2]);

  // Claims a crashed engine left behind: one a minute old, one ten minutes old.
  const claimed = (key: string, minutesAgo: number) =>
    db().query(
      `insert into idempotency_keys (tenant_id, method, path, key, body_hash, claim_token, created_at)
     select $1, 'POST', '/api/v1/probe', $2, body_hash, 'crashed', now() - make_interval(mins => $3) from idempotency_keys
      where tenant_id = $1 and key = 'boom'`,
      [sb.id, key, minutesAgo],
    );
  await claimed('recent', 1);
  await claimed('abandoned', 10);
  await assert.rejects(
    keys.run(request(sb.id, 'recent'), async () => ({ body: {} })),
    (err: ApiError) => err.code === 'idempotency_key_in_use',
  );
  const taken = await keys.run(request(sb.id, 'abandoned'), async () => ({ status: 201, body: { run: ++runs } }));
  assert.deepEqual([taken.status, taken.body], [201, { run: 3 }]);
});

test('stored responses are purged after their 24 h window, by the timer too', async () => {
  const sb = await createSandbox(engine.url);
  let now = Date.now();
  const keys = anotherProcess(() => now);
  let runs = 0;
  const handler = async (): Promise<RouteResult> => ({ body: { run: ++runs } });
  await keys.run(request(sb.id, 'day'), handler);
  now += 23 * 3600_000;
  await keys.purgeExpired();
  assert.equal((await storedRows(sb.id, 'day')).length, 1, 'kept within 24 h');
  assert.deepEqual((await keys.run(request(sb.id, 'day'), handler)).body, { run: 1 }, 'and replayed');

  now += 2 * 3600_000;
  const stop = keys.startPurging(10);
  try {
    for (let i = 0; i < 200 && (await storedRows(sb.id, 'day')).length > 0; i++)
      await new Promise((resolve) => setTimeout(resolve, 10));
  } finally {
    stop();
  }
  assert.deepEqual(await storedRows(sb.id, 'day'), [], 'purged by the timer after 24 h');
  assert.deepEqual((await keys.run(request(sb.id, 'day'), handler)).body, { run: 2 }, 'the key is new again');
});

test('a route that awaits the network (a replay to a catcher on this very engine) stores its response afterwards', async () => {
  const sb = await createSandbox(engine.url);
  const catcher = (await sb.api('/api/v1/catchers/idem', { method: 'PUT', body: {} })).body;
  const sent = await sb.api('/api/v1/webhooks/test', { body: { topic: 'order.placed', endpoint: catcher.url } });
  await waitForDelivery(sb, sent.body.deliveryId, (d) => d.status === 'succeeded');
  const path = `/api/v1/webhooks/deliveries/${sent.body.deliveryId}/replay`;
  const first = await sb.api(path, { method: 'POST', headers: withKey('replay') });
  const again = await sb.api(path, { method: 'POST', headers: withKey('replay') });
  assert.deepEqual([first.status, again.status, again.headers.get('idempotent-replayed')], [200, 200, 'true']);
  assert.deepEqual(again.body, first.body);
  assert.equal(first.body.attempts.length, 2, 'one replay attempt');
  assert.equal(
    (await sb.api(`/api/v1/catchers/idem/requests`)).body.data.length,
    2,
    'the catcher got the first attempt and one replay',
  );
});
