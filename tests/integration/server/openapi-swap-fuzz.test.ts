// Two sandboxes, and every operation of the OpenAPI document sent with what belongs elsewhere: ids,
// cursors and tokens of the other sandbox or of another operation, in a seeded order within a time
// budget (FUZZ_SEED, FUZZ_BUDGET_MS). Never a 5xx, and a refused request changes nothing in either
// sandbox (their state is fingerprinted before and after).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createSandbox, useEngine, type TestSandbox } from '../../helpers/engine.ts';
import {
  changedTables,
  fuzzBudgetMs,
  fuzzSeed,
  operationsOf,
  pick,
  plausibleBody,
  responseFault,
  seededRandom,
  stateOf,
  type OperationAt,
} from '../../helpers/fuzz.ts';
import { jsonOf, rawRequest } from '../../helpers/http.ts';

const engine = useEngine();
const minimumRequests = 80;

interface Side {
  sb: TestSandbox;
  /** Ids of objects this sandbox created (random, so no other sandbox has them), then seeded ones. */
  created: string[];
  ids: string[];
  /** nextCursor of each list, by path. */
  cursors: Map<string, string>;
  /** Everything secret-shaped it was given: tokens, secrets, an invitation token. */
  tokens: string[];
  receiverUrl: string;
}

const asAdmin = (sb: TestSandbox) => ({
  authorization: `Bearer ${engine.running.adminKey}`,
  'sandbay-sandbox': sb.id,
  'content-type': 'application/json',
});

async function post(sb: TestSandbox, path: string, body: unknown, method = 'POST'): Promise<any> {
  const res = await rawRequest(engine.url, path, { method, headers: asAdmin(sb), body: JSON.stringify(body) });
  assert.ok(res.status < 300, `${path}: ${res.status} ${res.body}`);
  return jsonOf(res);
}

/** A sandbox with one of everything that starts empty, and what the fuzz can take from it. */
async function side(lists: string[]): Promise<Side> {
  const sb = await createSandbox(engine.url);
  const receiverUrl: string = (await post(sb, '/api/v1/catchers/fuzz', { status: 200 }, 'PUT')).url;
  const endpoint = await post(sb, '/api/v1/webhooks/endpoints', { url: receiverUrl, topics: ['*'] });
  const test = await post(sb, '/api/v1/webhooks/test', { topic: 'order.placed', endpoint: receiverUrl });
  const order = await post(sb, '/api/v1/orders', {
    customerId: 'cus_0001',
    items: [{ variantId: 'var_0001', quantity: 1 }],
    shippingAddress: { city: 'İzmir', district: 'Konak' },
  });
  const staff = await post(sb, '/api/v1/staff', { email: 'swap@example.com', name: 'Swap', role: 'support' });
  const created = [endpoint.id, test.deliveryId, order.id, staff.id];
  const ids = new Set<string>(created);
  const cursors = new Map<string, string>();
  for (const list of lists) {
    const res = await rawRequest(engine.url, `${list}?limit=2`, { headers: asAdmin(sb) });
    if (res.status !== 200) continue;
    const page = jsonOf(res);
    for (const item of page.data ?? []) if (typeof item.id === 'string') ids.add(item.id);
    if (page.nextCursor) cursors.set(list, page.nextCursor);
  }
  const tokens = [
    sb.token,
    sb.refreshToken,
    sb.clientSecret,
    sb.webhookTestSecret,
    endpoint.secret,
    staff.invitationToken,
  ];
  return { sb, created, ids: [...ids], cursors, tokens, receiverUrl };
}

test('ids, cursors and tokens swapped between operations and sandboxes: no 5xx, and a refused request changes nothing', async (t) => {
  const budgetMs = fuzzBudgetMs(7000);
  const random = seededRandom(fuzzSeed);
  const doc = JSON.parse((await rawRequest(engine.url, '/api/v1/openapi.json')).body);
  const destructive = new Set(['resetSandbox', 'deleteSandbox']); // they end the sandbox the fuzz works in
  const operations = operationsOf(doc).filter(
    ({ path, op }) => !path.includes('/stream') && !destructive.has(op.operationId),
  );
  const lists = operations
    .filter(
      ({ method, op, path }) =>
        method === 'get' && !path.includes('{') && op.parameters?.some((p) => p.name === 'cursor'),
    )
    .map((o) => o.path);
  const sides = [await side(lists), await side(lists)];
  const db = engine.running.services.db;
  const fingerprint = async () => Promise.all(sides.map((s) => stateOf(db, s.sb.id)));
  // A 202 accepted work that goes on after the answer (a receiver check, a DLQ replay job): the next
  // request's "before" is taken once that work has stopped changing the sandboxes.
  const settled = async (last: string[]): Promise<string[]> => {
    for (let i = 0, quiet = 0; i < 300 && quiet < 3; i++) {
      await new Promise((r) => setTimeout(r, 100));
      const now = await fingerprint();
      quiet = now.every((state, k) => state === last[k]) ? quiet + 1 : 0;
      last = now;
    }
    return last;
  };

  // A real path for each operation in each sandbox: its ids are the first items of the lists above them.
  const ownPaths = new Map<string, string>();
  const ownPath = async (me: Side, path: string): Promise<string> => {
    const cacheKey = `${me.sb.id} ${path}`;
    if (path.startsWith('/catch/')) return new URL(me.receiverUrl).pathname;
    if (!ownPaths.has(cacheKey)) {
      let filled = path;
      for (const match of path.matchAll(/\{(\w+)\}/g)) {
        const res = await rawRequest(engine.url, filled.slice(0, filled.indexOf(match[0]) - 1), {
          headers: asAdmin(me.sb),
        });
        const first =
          res.status === 200 && /json/.test(String(res.headers['content-type'])) ? jsonOf(res).data?.[0] : undefined;
        filled = filled.replace(match[0], encodeURIComponent(first?.id ?? first?.name ?? 'nope'));
      }
      ownPaths.set(cacheKey, filled);
    }
    return ownPaths.get(cacheKey)!;
  };

  /** One request of `me`, with one thing taken from `other` or from another operation. */
  const swap = async (me: Side, other: Side, kind: string, { path, op }: OperationAt) => {
    const foreign = () => pick(random, [...other.created, ...other.created, ...other.ids, ...me.ids]);
    let target = await ownPath(me, path);
    let body = plausibleBody(doc, op, me.receiverUrl);
    let headers: Record<string, string> = asAdmin(me.sb);
    if (kind === 'id') {
      target = path.startsWith('/catch/')
        ? new URL(other.receiverUrl).pathname.replace(other.sb.id, me.sb.id)
        : path.replace(/\{(\w+)\}/g, () => encodeURIComponent(foreign()));
    } else if (kind === 'cursor') {
      const [from, cursor] = pick(random, [...other.cursors, ...[...me.cursors].filter(([list]) => list !== path)]);
      target = `${target}?cursor=${encodeURIComponent(cursor)}`;
      return { target, body, headers, kind: `cursor of ${from === path ? 'the other sandbox' : from}` };
    } else if (kind === 'token') {
      const token = pick(random, [...other.tokens, ...me.tokens.slice(1), engine.running.adminKey]);
      headers = { 'content-type': 'application/json', authorization: `Bearer ${token}` };
      if (random() < 0.5) headers['sandbay-sandbox'] = pick(random, [me.sb.id, other.sb.id]);
    } else if (body && typeof body === 'object' && !Array.isArray(body)) {
      const fields = Object.keys(body).filter((k) => /id$|token|endpoint|url|code|secret/i.test(k));
      const field = fields.length > 0 ? pick(random, fields) : undefined;
      if (field) body = { ...body, [field]: pick(random, [foreign(), foreign(), ...other.tokens, other.receiverUrl]) };
    }
    return { target, body, headers, kind };
  };

  // What each kind of swap applies to: path ids, list cursors, any request's token, bodies' id-like fields.
  const swappable: Record<string, OperationAt[]> = {
    id: operations.filter(({ path }) => path.includes('{')),
    cursor: operations.filter(({ op }) => op.parameters?.some((p) => p.name === 'cursor')),
    token: operations,
    body: operations.filter(({ op }) => op.requestBody),
  };
  const failures: string[] = [];
  let changedBySuccess = 0;
  const kinds = new Map<string, number>();
  let requests = 0;
  let refused = 0;
  let before = await fingerprint();
  const started = Date.now();
  while (Date.now() - started < budgetMs || requests < minimumRequests) {
    const mine = random() < 0.5 ? 0 : 1;
    const [me, other] = [sides[mine], sides[1 - mine]];
    const wanted = pick(random, Object.keys(swappable));
    const operation = pick(random, swappable[wanted]);
    const { target, body, headers, kind } = await swap(me, other, wanted, operation);
    const method = operation.method.toUpperCase();
    const res = await rawRequest(engine.url, target, {
      method,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    requests++;
    kinds.set(kind.split(' ')[0], (kinds.get(kind.split(' ')[0]) ?? 0) + 1);
    const label = `#${requests} ${method} ${target.slice(0, 100)} (${kind}) ${JSON.stringify(body)?.slice(0, 120) ?? ''}`;
    const fault = responseFault(target, res);
    if (fault) failures.push(`${label} → ${fault}`);
    const after = await fingerprint();
    // Documented refusals that keep something: a declined card's failed payment (402), and a reused
    // refresh token, which revokes its family (RFC 6749 BCP) — both are the point of the refusal.
    const keepsSomething = res.status === 402 || target.startsWith('/oauth/token');
    if (res.status >= 400 && !keepsSomething) {
      refused++;
      sides.forEach((s, i) => {
        if (after[i] !== before[i])
          failures.push(
            `${label} → ${res.status}, yet ${s.sb.id} changed: ${changedTables(before[i], after[i]).join('; ')}`,
          );
      });
    }
    if (res.status < 300 && method !== 'GET' && after.some((state, i) => state !== before[i])) changedBySuccess++;
    before = res.status === 202 ? await settled(after) : after;
  }
  t.diagnostic(
    `seed ${fuzzSeed}: ${requests} requests (${refused} refused) in ${Date.now() - started} ms; by swap: ${JSON.stringify(Object.fromEntries(kinds))}`,
  );
  assert.deepEqual(failures, []);
  assert.ok(changedBySuccess > 0, 'the fingerprint sees what accepted writes change');
  assert.ok(refused > requests / 3, `most swaps are refused (${refused} of ${requests})`);
  for (const kind of ['id', 'cursor', 'token', 'body'])
    assert.ok((kinds.get(kind) ?? 0) > 0, `${kind} swaps were sent`);
});
