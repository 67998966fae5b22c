// The delivery pruner with several engines on one database: two engines pruning one sandbox at once
// neither fail nor prune twice, and a prune never waits on (nor breaks) a delivery whose attempt is
// being recorded in another transaction (docs/decisions/pruning-with-several-engines.md).
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { RunningSandbox } from '../../../src/server/start.ts';
import { Pruner } from '../../../src/webhooks/pruner.ts';
import { createSandbox, type TestSandbox } from '../../helpers/engine.ts';
import { Receiver } from '../../helpers/receiver.ts';
import { useTeamEngines, withOpenTransaction } from '../../helpers/team.ts';
import { placeOrder, registerEndpoint, waitForDelivery } from '../../helpers/webhooks.ts';

// The engines' own pruners stay out of the way (10,000 kept); the tests prune with their own.
const team = useTeamEngines(2);
const receiver = new Receiver();
const keep = 3;
before(() => receiver.start());
after(() => receiver.close());
const engine = (i: number): RunningSandbox => team.engines[i];

const failNever = (message: string) => assert.fail(message);

/** A sandbox with `count` succeeded deliveries; returns their ids, oldest first. */
async function finishedDeliveries(count: number): Promise<{ sandbox: TestSandbox; ids: string[] }> {
  const sandbox = await createSandbox(engine(0).url);
  await registerEndpoint(sandbox, receiver.url, ['order.placed']);
  for (let i = 0; i < count; i++) await placeOrder(sandbox);
  const ids: string[] = (await sandbox.api('/api/v1/webhooks/deliveries?limit=100')).body.data
    .map((d: any) => d.id)
    .reverse();
  assert.equal(ids.length, count);
  for (const id of ids) await waitForDelivery(sandbox, id, (d) => d.status === 'succeeded');
  return { sandbox, ids };
}

async function left(sandbox: TestSandbox) {
  const [row] = await engine(0).services.db.query<{ deliveries: number; orphans: number }>(
    `select (select count(*)::int from deliveries where tenant_id = $1) as deliveries,
            (select count(*)::int from attempts t where t.tenant_id = $1
                and not exists (select 1 from deliveries d where d.tenant_id = t.tenant_id and d.id = t.delivery_id)) as orphans`,
    [sandbox.id],
  );
  return row;
}

test('two engines pruning one sandbox at once: no error, each old delivery pruned once, the newest kept', async () => {
  const { sandbox, ids } = await finishedDeliveries(10);
  const pruners = [0, 1].map((i) => new Pruner(engine(i).services.db, keep, failNever));
  const counts = await Promise.all([...pruners, ...pruners].map((p) => p.prune(sandbox.id)));
  assert.equal(
    counts.reduce((x, y) => x + y, 0),
    ids.length - keep,
  );
  assert.deepEqual(await left(sandbox), { deliveries: keep, orphans: 0 });
  const listed = (await sandbox.api('/api/v1/webhooks/deliveries')).body.data.map((d: any) => d.id);
  assert.deepEqual(listed, ids.slice(-keep).reverse());
});

test('a prune skips a delivery whose attempt another transaction is recording, without waiting; the next prune takes it', async () => {
  const { sandbox, ids } = await finishedDeliveries(6);
  const oldest = ids[0];
  const pruner = new Pruner(engine(1).services.db, keep, failNever);
  // What the attempt recorder does for a replay of the oldest delivery, held open mid-way.
  await withOpenTransaction(team.databaseUrl, async (recorder) => {
    await recorder.query(`update deliveries set attempt_count = attempt_count + 1 where tenant_id = $1 and id = $2`, [
      sandbox.id,
      oldest,
    ]);
    const pruned = await Promise.race([
      pruner.prune(sandbox.id),
      new Promise<never>((_, reject) =>
        setTimeout(() => reject(new Error('the prune waited on the delivery being recorded')), 5000),
      ),
    ]);
    assert.equal(pruned, ids.length - keep - 1, 'every old delivery but the one being recorded');
    await recorder.query(
      `insert into attempts (tenant_id, delivery_id, number, trigger, url, started_at, duration_ms, signature_header)
       values ($1, $2, 2, 'replay', $3, now(), 1, 't=1,v1=00')`,
      [sandbox.id, oldest, receiver.url],
    );
    await recorder.query('commit');
  });
  const replayed = (await sandbox.api(`/api/v1/webhooks/deliveries/${oldest}`)).body;
  assert.deepEqual(
    replayed.attempts.map((t: any) => t.number),
    [1, 2],
    'the delivery and both its attempts are intact',
  );
  assert.equal(await pruner.prune(sandbox.id), 1);
  assert.deepEqual(await left(sandbox), { deliveries: keep, orphans: 0 });
});

test('a delivery leased for an attempt in flight (a replay on any engine) is not pruned until its lease is over', async () => {
  const { sandbox, ids } = await finishedDeliveries(5);
  const [oldest] = ids;
  const db = engine(0).services.db;
  await db.query(
    `update deliveries set lease_owner = 'ins_elsewhere', lease_until = now() + interval '30 seconds', lease_slot = 2 where tenant_id = $1 and id = $2`,
    [sandbox.id, oldest],
  );
  const pruner = new Pruner(engine(1).services.db, keep, failNever);
  assert.equal(await pruner.prune(sandbox.id), ids.length - keep - 1);
  assert.equal((await sandbox.api(`/api/v1/webhooks/deliveries/${oldest}`)).status, 200);
  await db.query(`update deliveries set lease_until = now() - interval '1 second' where tenant_id = $1 and id = $2`, [
    sandbox.id,
    oldest,
  ]);
  assert.equal(await pruner.prune(sandbox.id), 1, 'a lease that ran out (its engine crashed) holds nothing');
  assert.deepEqual(await left(sandbox), { deliveries: keep, orphans: 0 });
});
