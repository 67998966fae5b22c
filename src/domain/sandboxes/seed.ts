import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Db, Queryable } from '../../db/database.ts';

/** The hidden tenant holding the seed rows every sandbox is copied from. */
const templateTenant = '__seed__';

/**
 * Seeded tables, parents first. Each has a seed/<table>.json file of camelCase rows
 * (money in integer minor units); domains add their tables here.
 */
const seededTables: string[] = [
  'vendors',
  'products',
  'variants',
  'customers',
  'orders',
  'order_items',
  'payments',
  'companies',
  'approval_requests',
  'approval_decisions',
  'quotes',
  'quote_items',
  'refunds',
  'vendor_offers',
  'buybox_winners',
  'payouts',
  'payout_attempts',
  'saved_reports',
  'report_runs',
  'staff_members',
  'impersonation_sessions',
  'audit_log',
  'consents',
];

const snake = (key: string) => key.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);

function seedFiles(dir: string): { table: string; json: string }[] {
  return seededTables
    .map((table) => ({ table, file: join(dir, `${table}.json`) }))
    .filter(({ file }) => existsSync(file))
    .map(({ table, file }) => ({ table, json: readFileSync(file, 'utf8') }));
}

export function seedHash(dir: string): string {
  const hash = createHash('sha256');
  for (const { table, json } of seedFiles(dir)) hash.update(table).update(json);
  return hash.digest('hex');
}

/**
 * Loads seed/ into the template tenant when the files changed since the last load.
 * Rows go in through jsonb_populate_recordset, one statement per table, naming only the
 * columns the file has, so a column added later with a default takes that default.
 */
export async function loadSeedTemplate(db: Db, dir: string): Promise<void> {
  const hash = seedHash(dir);
  const [current] = await db.query<{ value: string }>(`select value from meta where key = 'seed_hash'`);
  if (current?.value === hash) return;
  await db.transaction(async (tx) => {
    await tx.query('delete from tenants where id = $1', [templateTenant]);
    await tx.query(
      `insert into tenants (id, name, is_template, webhook_test_secret) values ($1, 'Seed template', true, '')`,
      [templateTenant],
    );
    for (const { table, json } of seedFiles(dir)) {
      const rows = (JSON.parse(json) as Record<string, unknown>[]).map((row) =>
        Object.fromEntries([['tenant_id', templateTenant], ...Object.entries(row).map(([k, v]) => [snake(k), v])]),
      );
      const columns = [...new Set(rows.flatMap((row) => Object.keys(row)))].map((c) => `"${c}"`).join(', ');
      await tx.query(
        `insert into ${table} (${columns}) select ${columns} from jsonb_populate_recordset(null::${table}, $1::jsonb)`,
        [JSON.stringify(rows)],
      );
    }
    await tx.query(
      `insert into meta (key, value) values ('seed_hash', $1) on conflict (key) do update set value = excluded.value`,
      [hash],
    );
  });
}

const columnCache = new Map<string, string>();

async function columnsOf(q: Queryable, table: string): Promise<string> {
  let list = columnCache.get(table);
  if (!list) {
    const cols = await q.query<{ column_name: string }>(
      `select column_name from information_schema.columns
        where table_schema = 'public' and table_name = $1 and column_name <> 'tenant_id' order by ordinal_position`,
      [table],
    );
    list = cols.map((c) => `"${c.column_name}"`).join(', ');
    columnCache.set(table, list);
  }
  return list;
}

/** Copies the template tenant's rows into a sandbox: one INSERT … SELECT per table. */
export async function seedTenant(q: Queryable, tenantId: string): Promise<void> {
  for (const table of seededTables) {
    const cols = await columnsOf(q, table);
    await q.query(`insert into ${table} (tenant_id, ${cols}) select $1, ${cols} from ${table} where tenant_id = $2`, [
      tenantId,
      templateTenant,
    ]);
  }
}
