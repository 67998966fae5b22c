import type { Db } from '../db/database.ts';
import { randomString } from '../shared/ids.ts';
import { engineAdminKey, type AdminKey } from './admin-key.ts';
import { installSecret, startupLockKey } from './database.ts';

interface AdminKeySources {
  /** The operator's (--admin-key), or a cluster worker's primary's: used as it is. */
  given?: string;
  /** The data dir, when the database lives there (PGlite or --postgres). */
  ownDataDir?: string;
  /** Where an engine on a --database-url keeps the key it made (its data dir, or a worker's primary's). */
  keyDir?: string;
}

/**
 * The install's secrets, under the start-up lock so that engines starting together on one database agree.
 * The admin key: the given one; else the data dir's when its database lives there, the same whichever it
 * runs on; else, on a --database-url, the database's own (shared by every engine on it, which keeps only
 * its hash: an engine that did not make it accepts it without knowing it, admin-key.ts).
 */
export async function installSecrets(
  db: Db,
  adminKeyFrom: AdminKeySources,
): Promise<{ admin: AdminKey; cursorSecret: string; fileKey: string }> {
  return db.withAdvisoryLock(startupLockKey, async () => ({
    admin: await engineAdminKey(db, adminKeyFrom),
    cursorSecret: await installSecret(db, 'cursor_secret', () => randomString(32)),
    fileKey: await installSecret(db, 'file_signing_key', () => randomString(32)),
  }));
}
