import { chmodSync, lstatSync, readdirSync } from 'node:fs';
import { join } from 'node:path';

// Data at rest is the user's alone (SPEC §7): data dirs 0700, files 0600, as PostgreSQL requires of its
// own. Windows has no such modes (its ACLs already keep a profile's AppData to its user).
const hasModes = process.platform !== 'win32';

/** The bits that let group and others in. */
const groupAndOther = 0o077;
/** A folder's bits that let group and others list it or create in it (passing through is harmless, see makePrivate). */
const folderGroupAndOther = 0o066;

/**
 * Takes group and other permissions off everything under `root` (itself included; symbolic links are
 * not followed; `skip` names what to leave alone, with what it holds), so a data dir made before modes
 * were enforced, or copied from a template, is owner-only: files lose every bit of group and others,
 * folders the right to be listed or written. A folder others may pass through keeps that (as root, the
 * PostgreSQL server --postgres runs as `postgres` must enter the data dir): with every file 0600 and no
 * listing, passing through shows nothing. What Sandbay creates there is 0700 and 0600 from the start.
 * Owner bits are kept (an executable stays executable). Returns how many entries it changed.
 */
export function makePrivate(root: string, skip: (path: string) => boolean = () => false): number {
  if (!hasModes) return 0;
  let changed = 0;
  const visit = (path: string) => {
    // Gone meanwhile (an engine already running on the data dir rotates its files): nothing to protect.
    const stat = lstatSync(path, { throwIfNoEntry: false });
    if (!stat || stat.isSymbolicLink() || skip(path)) return;
    const closed = stat.isDirectory() ? folderGroupAndOther : groupAndOther;
    if (stat.mode & closed) {
      chmodSync(path, stat.mode & 0o7777 & ~closed);
      changed++;
    }
    if (stat.isDirectory()) for (const name of readdirSync(path)) visit(join(path, name));
  };
  visit(root);
  return changed;
}
