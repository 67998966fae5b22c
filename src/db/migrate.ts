import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Db } from './database.ts';

export interface Migration {
  version: number;
  name: string;
  sql: string;
}

/** Reads migrations/NNN-name.sql files in version order. */
export function loadMigrations(dir: string): Migration[] {
  return readdirSync(dir)
    .filter((file) => /^\d{3}-[\w-]+\.sql$/.test(file))
    .sort()
    .map((file) => ({
      version: Number(file.slice(0, 3)),
      name: file.slice(4, -4),
      sql: readFileSync(join(dir, file), 'utf8'),
    }));
}

/** The database holds migrations this engine does not know: a newer Sandbay wrote it. */
class SchemaTooNewError extends Error {
  constructor(
    readonly databaseVersion: number,
    readonly engineVersion: number,
    writtenBy: string | null,
    engineApp: string,
  ) {
    super(
      `this database's schema is at version ${databaseVersion}${writtenBy ? ` (written by Sandbay ${writtenBy})` : ''}, ` +
        `newer than the schema version ${engineVersion} this Sandbay ${engineApp} knows; upgrade Sandbay ` +
        `(every engine sharing a database must run the same or a newer version)`,
    );
    this.name = 'SchemaTooNewError';
  }
}

interface AppliedRow {
  version: number;
  app_version: string | null;
}

/**
 * Applies the migrations a database has not seen yet, each in its own transaction, and refuses a
 * database carrying migrations it does not know. Callers that may race (several engines starting on
 * one server) hold an advisory lock around it.
 */
export async function migrate(db: Db, migrations: Migration[], appVersion = 'unknown'): Promise<number[]> {
  await db.exec(`create table if not exists schema_migrations (
    version int primary key, name text not null, applied_at timestamptz not null default now());
    alter table schema_migrations add column if not exists app_version text`);
  const rows = await db.query<AppliedRow>('select version, app_version from schema_migrations order by version');
  const known = new Set(migrations.map((m) => m.version));
  const unknown = rows.filter((r) => !known.has(r.version));
  if (unknown.length > 0) {
    const newest = unknown[unknown.length - 1];
    throw new SchemaTooNewError(newest.version, Math.max(0, ...known), newest.app_version, appVersion);
  }
  const done = new Set(rows.map((r) => r.version));
  const applied: number[] = [];
  for (const m of migrations) {
    if (done.has(m.version)) continue;
    await db.transaction(async (tx) => {
      // A migration may rewrite a big table or wait for a busy one: the request-sized timeouts do not apply.
      await tx.exec("set local statement_timeout = 0; set local lock_timeout = '60s'");
      await tx.exec(m.sql);
      await tx.query('insert into schema_migrations (version, name, app_version) values ($1, $2, $3)', [
        m.version,
        m.name,
        appVersion,
      ]);
    });
    applied.push(m.version);
  }
  return applied;
}
