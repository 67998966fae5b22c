import { createHash } from 'node:crypto';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import type { Db } from '../db/database.ts';
import { loadMigrations, migrate, type Migration } from '../db/migrate.ts';
import { migrationsDir, seedDir } from '../db/paths.ts';
import { packageVersion } from '../shared/node/package-root.ts';
import type { PostgresTimeouts } from '../db/timeouts.ts';
import type { ManagedPostgres } from '../db/managed-postgres.ts';
import { makeScratchDir } from '../db/template.ts';
import { loadSeedTemplate, seedHash } from '../domain/sandboxes/seed.ts';

/**
 * The advisory lock every engine takes to change the database's shape or shared rows at start-up
 * (migrations, seed template, per-install secrets): engines starting together on one server take turns.
 */
export const startupLockKey = 'sandbay:startup';

/** Migrates and loads the seed template, under the start-up lock (a no-op check when already current). */
export async function prepareDatabase(
  db: Db,
  migrations: Migration[] = loadMigrations(migrationsDir()),
): Promise<void> {
  await db.withAdvisoryLock(startupLockKey, async () => {
    await migrate(db, migrations, packageVersion());
    await loadSeedTemplate(db, seedDir());
  });
}

/** Changes whenever the migrations or the seed files do, so a stale template is never reused. */
function templateKey(): string {
  const hash = createHash('sha256');
  for (const m of loadMigrations(migrationsDir())) hash.update(m.sql);
  return `${hash.digest('hex')}:${seedHash(seedDir())}`;
}

export interface DatabaseOptions {
  /** A PGlite data dir (ignored with databaseUrl or memory). */
  dataDir?: string;
  /** PGlite in scratch storage, removed on close. */
  memory?: boolean;
  /** A PostgreSQL server instead of PGlite: postgres://user:password@host:port/database. */
  databaseUrl?: string;
  /** Connections per engine on PostgreSQL. */
  poolSize?: number;
  /** PostgreSQL's client- and server-side timeouts (src/db/timeouts.ts). */
  timeouts?: Partial<PostgresTimeouts>;
  /** Where database connection trouble is reported. */
  log?: (message: string) => void;
}

/**
 * Opens Sandbay's database — a PostgreSQL server, a PGlite dir, or PGlite scratch storage — migrated and seeded.
 * Each driver is imported once chosen: an engine on PGlite never loads pg, pg-listen and their kin, one on
 * PostgreSQL never loads PGlite's JavaScript (docs/decisions/engine-memory-levers.md).
 */
export async function openSandboxDatabase(options: DatabaseOptions): Promise<Db> {
  if (!options.databaseUrl) {
    const { openPglite } = await import('../db/open-pglite.ts');
    return openPglite({ ...options, prepare: (db) => prepareDatabase(db), templateKey: templateKey() });
  }
  const { openPostgres } = await import('../db/postgres.ts');
  const db = openPostgres({
    connectionString: options.databaseUrl,
    poolSize: options.poolSize,
    timeouts: options.timeouts,
    log: options.log,
  });
  try {
    await prepareDatabase(db);
  } catch (err) {
    await db.close();
    throw err;
  }
  return db;
}

/**
 * `--postgres`: the server Sandbay manages in <dataDir>/postgres, or in scratch storage (removed on stop) without a
 * data dir.
 */
export async function startSandboxPostgres(dataDir: string | undefined): Promise<ManagedPostgres> {
  const { startManagedPostgres } = await import('../db/managed-postgres.ts');
  const scratch = dataDir ? undefined : makeScratchDir();
  const server = await startManagedPostgres(dataDir ? join(dataDir, 'postgres') : join(scratch!, 'postgres'));
  return {
    ...server,
    async stop() {
      await server.stop();
      if (scratch) rmSync(scratch, { recursive: true, force: true });
    },
  };
}

/** Per-install secrets live in the database's meta table, created on first start. */
export async function installSecret(db: Db, key: string, make: () => string): Promise<string> {
  const [row] = await db.query<{ value: string }>(
    `insert into meta (key, value) values ($1, $2) on conflict (key) do update set value = meta.value returning value`,
    [key, make()],
  );
  return row.value;
}
