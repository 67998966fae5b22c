// SPEC §5.2's ten attempts in flight per endpoint hold across engines: two engines, each making and
// sending deliveries to one slow endpoint, never have more than ten requests open on it together.
import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { openPostgres } from '../../../src/db/postgres.ts';
import { registerEndpoint } from '../../helpers/webhooks.ts';
import { eventually, LedgerReceiver, placeOrders, sandboxOnAll, team } from './engines.ts';

const closing: (() => Promise<void>)[] = [];
after(async () => {
  for (const close of closing.reverse()) await close();
});

test('two engines never have more than ten attempts open on one endpoint', async () => {
  const receiver = await new LedgerReceiver().start();
  receiver.holdMs = 1000; // slower than orders come in: a backlog builds and both engines compete for the slots
  closing.push(() => receiver.close());
  const { engines, database, close } = await team(2);
  closing.push(close);
  const views = await sandboxOnAll(engines);
  await registerEndpoint(views[0], receiver.url, ['order.placed']);
  await placeOrders(views, 80, 8);
  const db = openPostgres({ connectionString: database.url });
  closing.push(() => db.close());
  await eventually('every delivery succeeded', 60_000, async () =>
    (await db.query<{ n: number }>(`select count(*) as n from deliveries where status <> 'succeeded'`))[0].n === 0
      ? true
      : undefined,
  );
  assert.equal(receiver.total, 80);
  assert.ok(receiver.maxOpen <= 10, `${receiver.maxOpen} requests open at once`);
  assert.ok(receiver.maxOpen >= 2, 'attempts did run side by side');
});
