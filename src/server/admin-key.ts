import { existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Db } from '../db/database.ts';
import { randomString } from '../shared/ids.ts';

/** The file in a data dir that keeps its admin key, whichever database the data dir runs on. */
export const adminKeyFile = (dataDir: string) => join(dataDir, 'admin-key');

export const newAdminKey = () => `sbk_${randomString(32)}`;

/**
 * The admin key of a data dir: one per data dir, the same under PGlite and under --postgres (each
 * keeps its own database there, and each database used to generate its own key). Kept in the data
 * dir as a 0600 file; a data dir without one adopts its database's existing key (`fromDatabase`), so
 * an install keeps the key it had. The caller holds the data dir's lock.
 */
export async function dataDirAdminKey(
  dataDir: string,
  fromDatabase: () => Promise<string | undefined> = async () => undefined,
): Promise<string> {
  const file = adminKeyFile(dataDir);
  if (existsSync(file)) {
    const kept = readFileSync(file, 'utf8').trim();
    if (kept) return kept;
  }
  const key = (await fromDatabase()) ?? newAdminKey();
  const temporary = `${file}.${process.pid}.tmp`;
  writeFileSync(temporary, `${key}\n`, { mode: 0o600 });
  renameSync(temporary, file);
  return key;
}

/** A database's installed admin key, if it has one (an install from before the key moved to the data dir). */
async function databaseAdminKey(db: Db): Promise<string | undefined> {
  const [row] = await db.query<{ value: string }>("select value from meta where key = 'admin_key'");
  return row?.value;
}

/**
 * The data dir's key. Its database (PGlite's files, or the server --postgres runs there) keeps no copy:
 * the 0600 file is its one home, as a database's files and write-ahead log outlive what is deleted from
 * them. An install from before keeps its key: adopted from the database when the file is missing, then
 * taken out of the database.
 */
export async function ownDatabaseAdminKey(dataDir: string, db: Db): Promise<string> {
  const key = await dataDirAdminKey(dataDir, () => databaseAdminKey(db));
  await db.query("delete from meta where key = 'admin_key'");
  return key;
}
