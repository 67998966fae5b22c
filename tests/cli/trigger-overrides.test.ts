// `sandbay trigger --override/--add/--remove/--data` (SPEC §11): the sample changed as asked, checked
// against the topic's JSON Schema before anything is sent.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { createSandbox, problem, useEngine, type TestSandbox } from '../helpers/engine.ts';
import { assertOneLineFailure, assertOneLineFailures, runCli, runCliJson } from '../helpers/cli.ts';
import { Receiver } from '../helpers/receiver.ts';
import { registerEndpoint } from '../helpers/webhooks.ts';

const engine = useEngine();
const receiver = new Receiver();
before(() => receiver.start());
after(() => receiver.close());
const dir = mkdtempSync(join(tmpdir(), 'sandbay-trigger-'));
after(() => rmSync(dir, { recursive: true, force: true }));

const as = (sb: TestSandbox) => ['--url', engine.url, '--token', sb.token];

/** A field of the topic's data a user could sensibly override, and a value of its type. */
function overridable(schema: any): { field: string; value: number | string; flag: string } {
  for (const [field, s] of Object.entries<any>(schema.properties)) {
    if (s.type === 'number') return { field, value: 10.5, flag: `data.${field}=10.5` };
  }
  for (const [field, s] of Object.entries<any>(schema.properties)) {
    if (s.type === 'string' && s.const === undefined && !s.enum && !s.format)
      return { field, value: 'overridden', flag: `data.${field}=overridden` };
  }
  throw new Error(`no overridable field in ${JSON.stringify(schema)}`);
}

test('trigger --override on every topic delivers data that validates against the topic schema, with the value given', async () => {
  const sb = await createSandbox(engine.url);
  const endpoint = await registerEndpoint(sb, `${receiver.url}/every`, ['*']);
  const topics: { topic: string; dataSchema: any }[] = (await sb.api('/api/v1/webhooks/topics')).body.data;
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  const queue = [...topics];
  const worker = async () => {
    for (let t = queue.shift(); t; t = queue.shift()) {
      const { field, value, flag } = overridable(t.dataSchema);
      const d = await runCliJson(['trigger', t.topic, '--to', endpoint.id, '--override', flag, ...as(sb)]);
      assert.equal(d.attempts[0].responseStatus, 200, t.topic);
      const sent = JSON.parse(receiver.received.find((r) => r.headers['x-service-delivery-id'] === d.id)!.body);
      assert.equal(sent.data[field], value, `${t.topic}: ${field}`);
      const validate = ajv.compile(t.dataSchema);
      assert.ok(validate(sent.data), `${t.topic}: ${JSON.stringify(validate.errors)}`);
    }
  };
  await Promise.all([worker(), worker(), worker()]);
});

test('nested paths, --add, --remove and --data @file.json: the sample changed exactly as asked', async () => {
  const sb = await createSandbox(engine.url);
  const file = join(dir, 'product.json');
  writeFileSync(file, JSON.stringify({ name: 'From a file', vendorId: 'ven_0001' }));
  const d = await runCliJson([
    'trigger',
    'product.created',
    '--to',
    `${receiver.url}/nested`,
    '--data',
    `@${file}`,
    '--override',
    'data.variants[0].price=12.5',
    '--override',
    'data.variants[0].sku="12345"',
    '--add',
    'data.note=hi',
    '--add',
    'data.tags=["a","b"]',
    '--remove',
    'data.note',
    '--add',
    'data.note=again',
    ...as(sb),
  ]);
  const body = JSON.parse(receiver.received.find((r) => r.headers['x-service-delivery-id'] === d.id)!.body);
  assert.deepEqual([body.data.name, body.data.vendorId], ['From a file', 'ven_0001']);
  assert.deepEqual(
    [body.data.variants[0].price, body.data.variants[0].sku],
    [12.5, '12345'],
    'a quoted value stays text',
  );
  assert.deepEqual([body.data.note, body.data.tags], ['again', ['a', 'b']]);
  assert.match(body.data.productId, /^prd_/, 'the rest is the sample');
});

test('a wrong type, a missing field or a bad path is refused with the path named, and nothing is delivered', async () => {
  const sb = await createSandbox(engine.url);
  const before = receiver.received.length;
  const wrongType = await runCli([
    'trigger',
    'order.placed',
    '--to',
    receiver.url,
    '--override',
    'data.total=abc',
    ...as(sb),
  ]);
  assertOneLineFailure(wrongType, /\/data\/total: .*expected number, received string/);
  const missing = await runCli([
    'trigger',
    'order.placed',
    '--to',
    receiver.url,
    '--override',
    'data.note=hi',
    ...as(sb),
  ]);
  assertOneLineFailure(
    missing,
    /\/patch\/0\/path: replace \/note: no field \/note in the sample to override \(--add adds one\)/,
  );
  const badPath = await runCli([
    'trigger',
    'order.placed',
    '--to',
    receiver.url,
    '--override',
    'data..total=1',
    ...as(sb),
  ]);
  assertOneLineFailure(badPath, /cannot read the path data\.\.total/);
  await assertOneLineFailures([
    [['trigger', 'order.placed', '--to', receiver.url, '--data', '[1]', ...as(sb)], /--data must be a JSON object/],
    [
      ['trigger', 'order.placed', '--to', receiver.url, '--data', `@${join(dir, 'missing.json')}`, ...as(sb)],
      /cannot read .*missing\.json: ENOENT/,
    ],
  ]);
  assert.equal((await sb.api('/api/v1/webhooks/deliveries')).body.data.length, 0);
  assert.equal(receiver.received.length, before);
});

test('POST /webhooks/test takes data (a merge patch) and patch operations; a mismatch is 422 with each path', async () => {
  const sb = await createSandbox(engine.url);
  const ok = await sb.api('/api/v1/webhooks/test', {
    body: {
      topic: 'order.placed',
      endpoint: receiver.url,
      data: { total: 99.9 },
      patch: [{ op: 'add', path: '/giftNote', value: 'İyi günler' }],
    },
  });
  assert.equal(ok.status, 202);
  const bad = problem(
    await sb.api('/api/v1/webhooks/test', {
      body: {
        topic: 'product.created',
        endpoint: receiver.url,
        data: { name: 5 },
        patch: [{ op: 'replace', path: '/variants/0/stock', value: 1.5 }],
      },
    }),
    422,
    'validation_failed',
  );
  assert.deepEqual(bad.errors.map((e: any) => e.path).sort(), ['/data/name', '/data/variants/0/stock']);
  const outOfRange = problem(
    await sb.api('/api/v1/webhooks/test', {
      body: {
        topic: 'product.created',
        endpoint: receiver.url,
        patch: [{ op: 'replace', path: '/variants/99/stock', value: 1 }],
      },
    }),
    422,
    'validation_failed',
  );
  assert.match(outOfRange.errors[0].message, /no element \/variants\/99 in the sample \(the array has \d+\)/);
  const removed = problem(
    await sb.api('/api/v1/webhooks/test', {
      body: { topic: 'product.created', endpoint: receiver.url, data: { category: null } },
    }),
    422,
    'validation_failed',
  );
  assert.deepEqual(
    removed.errors.map((e: any) => e.path),
    ['/data/category'],
    'null removes a field; a required one is missed',
  );
  problem(
    await sb.api('/api/v1/webhooks/test', {
      body: { topic: 'order.placed', endpoint: receiver.url, patch: [{ op: 'move', path: '/total' }] },
    }),
    422,
    'validation_failed',
  );
  problem(
    await sb.api('/api/v1/webhooks/test', {
      body: { topic: 'order.placed', endpoint: receiver.url, patch: [{ op: 'add', path: '/x', value: 1, from: '/y' }] },
    }),
    400,
    'unknown_field',
  );
});
