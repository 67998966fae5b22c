import { createHash, timingSafeEqual } from 'node:crypto';
import { existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Db } from '../db/database.ts';
import { randomString } from '../shared/ids.ts';

/** The file in a data dir that keeps its admin key, whichever database the data dir runs on. */
export const adminKeyFile = (dataDir: string) => join(dataDir, 'admin-key');

const newAdminKey = () => `sbk_${randomString(32)}`;

/**
 * What an engine knows of its admin key: its SHA-256 always (what a request's key is checked against),
 * the key itself when this engine has it to print and to hand the CLI (a second engine on a shared
 * database may not: docs/decisions/the-database-keeps-only-the-admin-keys-hash.md).
 */
export interface AdminKey {
  hash: string;
  key?: string;
}

/**
 * SHA-256, hex. A fast hash suffices: the keys are random (`sbk_` + 32 of 62 characters, or the 32+
 * characters an operator must give), so there is no dictionary for a slow hash to hold back.
 */
export const adminKeyHash = (key: string) => createHash('sha256').update(key).digest('hex');

/** Whether `candidate` is the key `hash` was made from, in time that does not depend on where they differ. */
export function matchesAdminKey(candidate: string, hash: string): boolean {
  return timingSafeEqual(Buffer.from(adminKeyHash(candidate), 'hex'), Buffer.from(hash, 'hex'));
}

/** What an engine that accepts its shared database's key without knowing it logs once, at start. */
export const unknownAdminKeyNotice =
  "this database's admin key was made by another engine, and only its hash is stored: this engine accepts it but " +
  'cannot show it. It is on the ready line and in the data dir (admin-key file) of the engine that made it; give ' +
  'it here with --admin-key (or SANDBAY_ADMIN_KEY) for this ready line and CLI';

/** A key this engine holds (made, kept or given): its hash is computed here. */
const knownAdminKey = (key: string): AdminKey => ({ key, hash: adminKeyHash(key) });

/** The key a data dir's file keeps, if it has one. */
function keptAdminKey(dataDir: string): string | undefined {
  const file = adminKeyFile(dataDir);
  return (existsSync(file) && readFileSync(file, 'utf8').trim()) || undefined;
}

/** Writes the data dir's key file (0600), atomically: a reader sees the old file or the new one. */
function keepAdminKey(dataDir: string, key: string): string {
  const file = adminKeyFile(dataDir);
  const temporary = `${file}.${process.pid}.tmp`;
  writeFileSync(temporary, `${key}\n`, { mode: 0o600 });
  renameSync(temporary, file);
  return key;
}

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
  return keptAdminKey(dataDir) ?? keepAdminKey(dataDir, (await fromDatabase()) ?? newAdminKey());
}

/** A database's admin key in plain text, if it has one: an install from before the database kept only its hash. */
async function plainDatabaseAdminKey(db: Db): Promise<string | undefined> {
  const [row] = await db.query<{ value: string }>("select value from meta where key = 'admin_key'");
  return row?.value;
}

/**
 * The data dir's key. Its database (PGlite's files, or the server --postgres runs there) keeps no copy:
 * the 0600 file is its one home, as a database's files and write-ahead log outlive what is deleted from
 * them. An install from before keeps its key: adopted from the database when the file is missing, then
 * taken out of the database.
 */
async function ownDatabaseAdminKey(dataDir: string, db: Db): Promise<string> {
  const key = await dataDirAdminKey(dataDir, () => plainDatabaseAdminKey(db));
  await db.query("delete from meta where key = 'admin_key'");
  return key;
}

/**
 * An engine given its key (--admin-key, or a --workers primary's) still takes a plain key from before out of
 * its database, leaving its hash, so the engines not given one keep accepting it.
 */
async function retirePlainAdminKey(db: Db): Promise<void> {
  const plain = await plainDatabaseAdminKey(db);
  if (plain === undefined) return;
  await db.query("insert into meta (key, value) values ('admin_key_sha256', $1) on conflict (key) do nothing", [
    adminKeyHash(plain),
  ]);
  await db.query("delete from meta where key = 'admin_key'");
}

/**
 * The key of a database several engines may share (--database-url; also --memory's scratch one): the
 * database keeps its SHA-256 alone, so every engine on it accepts the one key. The first engine to open it
 * makes the key (its data dir's own when it has one, kept in that data dir's file). A database from before
 * that held the key in plain text has it hashed and the plain row deleted; the engine doing so knows the
 * key, and keeps it in its data dir when that has none. Any other engine knows the key only if its data
 * dir's file holds it. The caller holds the startup lock, so engines starting together make one key.
 */
async function sharedDatabaseAdminKey(db: Db, dataDir: string | undefined): Promise<AdminKey> {
  const plain = await plainDatabaseAdminKey(db);
  const [row] = await db.query<{ value: string }>("select value from meta where key = 'admin_key_sha256'");
  const kept = dataDir === undefined ? undefined : keptAdminKey(dataDir);
  const made = plain ?? (row ? undefined : (kept ?? newAdminKey()));
  const hash = row?.value ?? adminKeyHash(made!);
  if (!row) await db.query("insert into meta (key, value) values ('admin_key_sha256', $1)", [hash]);
  if (plain !== undefined) await db.query("delete from meta where key = 'admin_key'");
  const key = [made, kept].find((k) => k !== undefined && matchesAdminKey(k, hash));
  if (key !== undefined && dataDir !== undefined && kept === undefined) keepAdminKey(dataDir, key);
  return { key, hash };
}

/**
 * An engine's admin key: the one it was given (--admin-key, or a --workers primary's); else the data dir's when
 * its database lives there (PGlite, --postgres); else the database's own, shared by every engine on it
 * (`keyDir` keeps it: the data dir, or a --workers primary's). Either way a plain key from before leaves the
 * database. The caller holds the startup lock.
 */
export async function engineAdminKey(
  db: Db,
  options: { given?: string; ownDataDir?: string; keyDir?: string },
): Promise<AdminKey> {
  const { given, ownDataDir, keyDir } = options;
  if (ownDataDir !== undefined) {
    const own = await ownDatabaseAdminKey(ownDataDir, db);
    return knownAdminKey(given ?? own);
  }
  if (given === undefined) return sharedDatabaseAdminKey(db, keyDir);
  await retirePlainAdminKey(db);
  return knownAdminKey(given);
}
