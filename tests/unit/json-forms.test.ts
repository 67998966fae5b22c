// The serialiser forms the receiver check probes with are what each language's standard library
// really writes: checked against python3, php, go and node themselves (Ruby's is not installed here;
// its form is JavaScript's with 0.0 kept, which the JavaScript and Python cross-checks pin down).
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import {
  identifyJsonForm,
  JsonFloat,
  jsonFormById,
  jsonForms,
  sameJson,
  writeJson,
  type JsonFormId,
} from '../../src/shared/json-forms.ts';

const dir = mkdtempSync(join(tmpdir(), 'sandbay-json-forms-'));
after(() => rmSync(dir, { recursive: true, force: true }));
const env = { ...process.env, GOCACHE: process.env.GOCACHE ?? join(tmpdir(), 'sandbay-go-cache') };

// An envelope with everything that tells the forms apart: "/", <, &, non-ASCII, unsorted keys, 0.0 and a nested list.
const event = {
  topic: 'order.placed',
  deliveryId: 'dlv_forms',
  tenantId: 'sbx_forms',
  occurredAt: '2026-01-01T00:00:00.000Z',
  data: {
    orderId: 'ord_1',
    total: 1234.56,
    currency: 'TRY',
    discount: new JsonFloat(0),
    note: 'İstanbul/Kadıköy <b>&</b> ✓',
    items: [{ quantity: 2, sku: 'a"b' }, null, true],
  },
};
// The source every serialiser parses: written with 0.0, so the ones that keep a float's point can.
const source = writeJson(event, jsonFormById('ruby'));

const serialisers: Record<Exclude<JsonFormId, 'ruby' | 'rails'>, () => string> = {
  python: () =>
    execFileSync('python3', ['-c', 'import json,sys; sys.stdout.write(json.dumps(json.loads(sys.stdin.read())))'], {
      input: source,
      encoding: 'utf8',
    }),
  'python-compact': () =>
    execFileSync(
      'python3',
      ['-c', 'import json,sys; sys.stdout.write(json.dumps(json.loads(sys.stdin.read()), separators=(",", ":")))'],
      { input: source, encoding: 'utf8' },
    ),
  php: () =>
    execFileSync('php', ['-r', 'echo json_encode(json_decode(file_get_contents("php://stdin"), true));'], {
      input: source,
      encoding: 'utf8',
    }),
  go: () => {
    writeFileSync(
      join(dir, 'main.go'),
      'package main\nimport ("encoding/json";"io";"os")\nfunc main() { b, _ := io.ReadAll(os.Stdin); var v interface{}; if err := json.Unmarshal(b, &v); err != nil { panic(err) }; out, _ := json.Marshal(v); os.Stdout.Write(out) }\n',
    );
    return execFileSync('go', ['run', 'main.go'], { cwd: dir, input: source, encoding: 'utf8', env });
  },
  javascript: () => JSON.stringify(JSON.parse(source)),
};

for (const [id, serialise] of Object.entries(serialisers)) {
  test(`the ${id} form is byte for byte what ${id}'s own serialiser writes`, () => {
    const real = serialise();
    assert.equal(writeJson(event, jsonFormById(id as JsonFormId)), real);
    assert.equal(identifyJsonForm(real, source)?.id, id, 'and those bytes are recognised as its');
  });
}

test('each form re-serialised by its own language is unchanged, and by any other it is not: one probe per form tells them apart', () => {
  const bodies = jsonForms.map((f) => writeJson(event, f));
  assert.equal(new Set(bodies).size, jsonForms.length);
  // What each form's receiver would verify after re-serialising each probe body.
  const reserialise = (form: JsonFormId, body: string) =>
    identifyJsonForm(body) === jsonFormById(form) || writeJson(JSON.parse(body), jsonFormById(form)) === body;
  for (const [i, f] of jsonForms.entries()) {
    // The first probe (in the check's order) a form's receiver accepts is its own.
    const accepted = jsonForms.findIndex((probe) => reserialise(f.id, writeJson(event, probe)));
    assert.equal(accepted, i, `${f.id} accepts ${jsonForms[accepted]?.id} first`);
  }
  assert.ok(
    bodies.every((b) => sameJson(b, source)),
    'the same value every time',
  );
});

test('sameJson ignores key order and layout, not values', () => {
  assert.ok(sameJson('{"a":1,"b":[1,2]}', '{ "b": [1, 2], "a": 1 }'));
  assert.ok(!sameJson('{"a":1}', '{"a":2}'));
  assert.ok(!sameJson('{"a":1}', 'not json'));
});
