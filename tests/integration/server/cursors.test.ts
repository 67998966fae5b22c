// A list cursor names the list, the sandbox and the key type it was issued for: passed to
// another list or by another sandbox it is a clear 422, never a 500 or a silently wrong page.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { call, createSandbox, problem, useEngine, type TestSandbox } from '../../helpers/engine.ts';
import { advance, placeOrder, registerEndpoint } from '../../helpers/webhooks.ts';

const engine = useEngine();

/** Two catchers, an endpoint that fails and one that succeeds, a dead delivery: every list has two rows. */
async function populate(sb: TestSandbox): Promise<void> {
  for (const [name, status] of [
    ['ok', 200],
    ['down', 500],
  ] as const) {
    const catcher = await sb.api(`/api/v1/catchers/${name}`, { method: 'PUT', body: { status } });
    assert.equal(catcher.status, 201);
    await registerEndpoint(sb, catcher.body.url, ['order.*']);
  }
  await placeOrder(sb);
  await placeOrder(sb);
  await advance(sb, 2 * 3600);
}

const nextCursor = async (sb: TestSandbox, list: string): Promise<string> => {
  const res = await sb.api(`${list}${list.includes('?') ? '&' : '?'}limit=1`);
  assert.equal(res.status, 200, `${list}: ${JSON.stringify(res.body)}`);
  assert.equal(typeof res.body.nextCursor, 'string', `${list} has a second page`);
  return res.body.nextCursor;
};

const withCursor = (list: string, cursor: string) =>
  `${list}${list.includes('?') ? '&' : '?'}limit=1&cursor=${encodeURIComponent(cursor)}`;

test('every list refuses the cursors of other lists (of each key type) with a 422 naming both', async () => {
  await createSandbox(engine.url); // so the list of sandboxes has a second page
  const sb = await createSandbox(engine.url);
  await populate(sb);
  const doc = (await sb.api('/api/v1/openapi.json')).body;
  // Every list the document describes (a GET with a cursor), its path ids filled with a seeded one.
  const lists = Object.entries(doc.paths as Record<string, Record<string, { parameters?: { name: string }[] }>>)
    .filter(([, ops]) => ops.get?.parameters?.some((p) => p.name === 'cursor'))
    .map(([path]) => path.replace('{id}', path.startsWith('/api/v1/vendors') ? 'ven_0001' : 'rpt_0001'));
  assert.ok(lists.length >= 20, `lists found: ${lists.join(' ')}`);
  // The admin key acting on the sandbox reaches the admin's list of sandboxes too.
  const headers = { authorization: `Bearer ${engine.running.adminKey}`, 'sandbay-sandbox': sb.id };
  const issued = new Map<string, string>();
  for (const list of lists) {
    const res = await call(engine.url, `${list}?limit=1`, { headers });
    if (res.status === 200 && res.body.nextCursor) issued.set(list, res.body.nextCursor);
  }
  for (const list of [
    '/api/v1/sandboxes',
    '/api/v1/orders',
    '/api/v1/events',
    '/api/v1/webhooks/deliveries',
    '/api/v1/webhooks/dlq',
    '/api/v1/catchers',
    '/api/v1/webhooks/endpoints',
  ]) {
    assert.ok(issued.has(list), `${list} issued a cursor`);
  }
  // Each list is sent a cursor of each key type (a time, a sequence, a name) from another list,
  // and each list's cursor is sent back to it and to another list.
  const foreign = ['/api/v1/orders', '/api/v1/events', '/api/v1/catchers'];
  const pairs = [
    ...lists.flatMap((to) => foreign.filter((from) => from !== to).map((from) => [from, to])),
    ...[...issued.keys()].flatMap((from) => [
      [from, from],
      [from, from === foreign[0] ? foreign[1] : foreign[0]],
    ]),
  ];
  for (const [from, to] of pairs) {
    const res = await call(engine.url, withCursor(to, issued.get(from)!), { headers });
    if (to === from) {
      assert.equal(res.status, 200, `${from} takes its own cursor`);
      continue;
    }
    const body = problem(res, 422, 'validation_failed');
    assert.deepEqual(
      body.errors.map((e: { path: string }) => e.path),
      ['/cursor'],
      `${from} → ${to}`,
    );
    assert.ok(body.detail.includes(from) && body.detail.includes(to), `${from} → ${to}: ${body.detail}`);
  }
});

test("another sandbox's cursor for the same list is refused; its own works", async () => {
  const [a, b] = [await createSandbox(engine.url), await createSandbox(engine.url)];
  const fromA = await nextCursor(a, '/api/v1/orders');
  const res = problem(await b.api(withCursor('/api/v1/orders', fromA)), 422, 'validation_failed');
  assert.match(res.detail, /another sandbox/);
  assert.equal((await a.api(withCursor('/api/v1/orders', fromA))).status, 200);
  // The admin key acting on sandbox A pages A's list with A's cursor, and not B's.
  const admin = (sandbox: string) => ({
    authorization: `Bearer ${engine.running.adminKey}`,
    'sandbay-sandbox': sandbox,
  });
  assert.equal((await call(engine.url, withCursor('/api/v1/orders', fromA), { headers: admin(a.id) })).status, 200);
  problem(
    await call(engine.url, withCursor('/api/v1/orders', fromA), { headers: admin(b.id) }),
    422,
    'validation_failed',
  );
});

test("one vendor's offers cursor does not page another vendor's offers", async () => {
  const sb = await createSandbox(engine.url);
  const vendors = (await sb.api('/api/v1/vendors?limit=100')).body.data.map((v: { id: string }) => v.id);
  let from: string | undefined;
  let cursor: string | undefined;
  for (const id of vendors) {
    const page = await sb.api(`/api/v1/vendors/${id}/offers?limit=1`);
    if (page.body.nextCursor) [from, cursor] = [id, page.body.nextCursor];
  }
  assert.ok(from && cursor, 'a vendor with two offers');
  const other = vendors.find((id: string) => id !== from);
  problem(await sb.api(withCursor(`/api/v1/vendors/${other}/offers`, cursor)), 422, 'validation_failed');
  assert.equal((await sb.api(withCursor(`/api/v1/vendors/${from}/offers`, cursor))).status, 200);
});
