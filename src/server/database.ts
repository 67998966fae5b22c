import { createHash } from 'node:crypto';
import type { Db } from '../db/database.ts';
import { loadMigrations, migrate } from '../db/migrate.ts';
import { openDatabase } from '../db/open.ts';
import { migrationsDir, seedDir } from '../db/paths.ts';
import { loadSeedTemplate, seedHash } from '../domain/sandboxes/seed.ts';

async function prepareDatabase(db: Db): Promise<void> {
  await migrate(db, loadMigrations(migrationsDir()));
  await loadSeedTemplate(db, seedDir());
}

/** Changes whenever the migrations or the seed files do, so a stale template is never reused. */
function templateKey(): string {
  const hash = createHash('sha256');
  for (const m of loadMigrations(migrationsDir())) hash.update(m.sql);
  return `${hash.digest('hex')}:${seedHash(seedDir())}`;
}

/** Opens Sandbay's database (a PGlite dir, or scratch storage for --memory), migrated and seeded. */
export function openSandboxDatabase(options: { dataDir?: string; memory?: boolean }): Promise<Db> {
  return openDatabase({ ...options, prepare: prepareDatabase, templateKey: templateKey() });
}
