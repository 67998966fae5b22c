// Migration 110 gives every OAuth client that exists before it all 22 scopes: it could be granted every
// one until then, and scopes never grow only from here on (docs/decisions/scopes-never-grow.md).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { PGlite } from '@electric-sql/pglite';
import type { Db } from '../../../src/db/database.ts';
import { loadMigrations, migrate } from '../../../src/db/migrate.ts';
import { openPostgres } from '../../../src/db/postgres.ts';
import { wrapPglite } from '../../../src/db/pglite.ts';
import { migrationsDir } from '../../../src/db/paths.ts';
import { allScopes } from '../../../src/shared/scopes.ts';
import { createTestDatabase, testDriver } from '../../helpers/postgres.ts';

test('clients registered before migration 110 keep every scope; the column is required from then on', async () => {
  const database = testDriver() === 'pg' ? await createTestDatabase() : undefined;
  const db: Db = database ? openPostgres({ connectionString: database.url }) : wrapPglite(await PGlite.create());
  try {
    const all = loadMigrations(migrationsDir());
    await migrate(
      db,
      all.filter((m) => m.version < 110),
    );
    await db.query("insert into tenants (id, name, webhook_test_secret) values ('sbx_old', 'old', 'whsec_x')");
    await db.query(
      `insert into oauth_clients (client_id, tenant_id, secret_hash, secret_hint, sandbox_client)
       values ('cli_own', 'sbx_old', 'h', 'cs_…abcd', true)`,
    );
    await db.query(
      "insert into oauth_clients (client_id, tenant_id, public, name) values ('cli_spa', 'sbx_old', true, 'spa')",
    );
    await migrate(db, all);
    const rows = await db.query<{ client_id: string; scope: string }>(
      'select client_id, scope from oauth_clients order by client_id',
    );
    assert.deepEqual(rows, [
      { client_id: 'cli_own', scope: allScopes.join(' ') },
      { client_id: 'cli_spa', scope: allScopes.join(' ') },
    ]);
    await assert.rejects(
      db.query("insert into oauth_clients (client_id, tenant_id, public) values ('cli_new', 'sbx_old', true)"),
      /null/,
    );
  } finally {
    await db.close();
    await database?.drop();
  }
});
