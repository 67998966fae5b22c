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

/** Applies the migrations a database has not seen yet, each in its own transaction. */
export async function migrate(db: Db, migrations: Migration[]): Promise<number[]> {
  await db.exec(`create table if not exists schema_migrations (
    version int primary key, name text not null, applied_at timestamptz not null default now())`);
  const done = new Set((await db.query<{ version: number }>('select version from schema_migrations')).map((r) => r.version));
  const applied: number[] = [];
  for (const m of migrations) {
    if (done.has(m.version)) continue;
    await db.transaction(async (tx) => {
      await tx.exec(m.sql);
      await tx.query('insert into schema_migrations (version, name) values ($1, $2)', [m.version, m.name]);
    });
    applied.push(m.version);
  }
  return applied;
}
