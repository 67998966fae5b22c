import type { Db } from '../db/database.ts';
import { randomString } from '../shared/ids.ts';
import { newAdminKey, ownDatabaseAdminKey } from './admin-key.ts';
import { startupLockKey } from './database.ts';

/** Per-install secrets live in the database's meta table, created on first start. */
async function installSecret(db: Db, key: string, make: () => string): Promise<string> {
  const [row] = await db.query<{ value: string }>(
    `insert into meta (key, value) values ($1, $2) on conflict (key) do update set value = meta.value returning value`,
    [key, make()],
  );
  return row.value;
}

interface AdminKeySources {
  /** The operator's (--admin-key), or a cluster worker's primary's: used as it is. */
  given?: string;
  /** The data dir, when the database lives there (PGlite or --postgres). */
  ownDatabaseDir?: string;
}

/**
 * The install's secrets, under the start-up lock so that engines starting together on one database agree.
 * The admin key: the given one; else the data dir's when its database lives there, the same whichever it
 * runs on; else, on a --database-url, the database's own (shared by every engine on it).
 */
export async function installSecrets(db: Db, adminKeyFrom: AdminKeySources) {
  const { given, ownDatabaseDir } = adminKeyFrom;
  return db.withAdvisoryLock(startupLockKey, async () => ({
    adminKey:
      given ??
      (ownDatabaseDir !== undefined
        ? await ownDatabaseAdminKey(ownDatabaseDir, db)
        : await installSecret(db, 'admin_key', newAdminKey)),
    cursorSecret: await installSecret(db, 'cursor_secret', () => randomString(32)),
    fileKey: await installSecret(db, 'file_signing_key', () => randomString(32)),
  }));
}
