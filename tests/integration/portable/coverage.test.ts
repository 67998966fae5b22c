import assert from 'node:assert/strict';
import { test } from 'node:test';
import { notExported, portableTables, tenantColumns } from '../../../src/domain/sandboxes/portable/manifest.ts';
import { useEngine } from '../../helpers/engine.ts';

// A migration that adds a tenant-scoped table or a column to one must say here what a sandbox file
// does with it (src/domain/sandboxes/portable/manifest.ts): export it, keep it local, or treat it as a secret.
const engine = useEngine();

async function schema(): Promise<Map<string, string[]>> {
  const rows = await engine.running.services.db.query<{ table_name: string; column_name: string }>(
    `select c.table_name, c.column_name from information_schema.columns c
       join information_schema.tables t on t.table_schema = c.table_schema and t.table_name = c.table_name
      where c.table_schema = 'public' and t.table_type = 'BASE TABLE'
        and (c.table_name = 'tenants' or exists (select 1 from information_schema.columns k
              where k.table_schema = 'public' and k.table_name = c.table_name and k.column_name = 'tenant_id'))
      order by c.table_name, c.ordinal_position`,
  );
  const tables = new Map<string, string[]>();
  for (const r of rows) tables.set(r.table_name, [...(tables.get(r.table_name) ?? []), r.column_name]);
  return tables;
}

test('every tenant-scoped table is in a sandbox file or named as left out, with why', async () => {
  const declared = new Set([...portableTables.map((t) => t.table), ...Object.keys(notExported), 'tenants']);
  const tables = [...(await schema()).keys()];
  assert.deepEqual(
    tables.filter((t) => !declared.has(t)),
    [],
    'tables neither in portableTables nor in notExported',
  );
  assert.deepEqual(
    [...declared].filter((t) => !tables.includes(t)),
    [],
    'declared tables the schema does not have',
  );
});

test('every column of an exported table is exported, local, portable or a secret, and the tenants row is accounted for', async () => {
  const tables = await schema();
  const problems: string[] = [];
  for (const t of portableTables) {
    const covered = new Set([
      'tenant_id',
      ...t.columns,
      ...Object.keys(t.secrets ?? {}),
      ...Object.keys(t.local ?? {}),
      ...Object.keys(t.portable ?? {}),
    ]);
    const actual = tables.get(t.table) ?? [];
    for (const c of actual) if (!covered.has(c)) problems.push(`${t.table}.${c} is not covered`);
    for (const c of covered)
      if (!actual.includes(c)) problems.push(`${t.table}.${c} is declared but not in the schema`);
    for (const c of t.order)
      if (!actual.includes(c)) problems.push(`${t.table} is ordered by ${c}, which it does not have`);
  }
  for (const c of tables.get('tenants') ?? []) if (!tenantColumns[c]) problems.push(`tenants.${c} is not covered`);
  assert.deepEqual(problems, []);
});
