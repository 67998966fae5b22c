import { PGlite } from '@electric-sql/pglite';
import { existsSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { setFlagsFromString } from 'node:v8';
import type { Db } from './database.ts';
import { pgliteParsers, wrapPglite } from './pglite.ts';
import { PrivateNodeFS } from './private-nodefs.ts';
import { copyTemplate, ensureTemplate, makeScratchDir } from './template.ts';

export interface OpenOptions {
  /** Persistent data dir; ignored when memory is set. */
  dataDir?: string;
  /** Scratch storage removed on close ("no files kept"). */
  memory?: boolean;
  /** Brings a database up to date: migrations, seed template. Runs on every open. */
  prepare: (db: Db) => Promise<void>;
  /** Changes whenever prepare would produce different contents (migrations, seed files). */
  templateKey: string;
}

const pgliteVersion = 'pglite-0.5.16';

// Postgres' default 128 MB buffer pool is most of PGlite's resident memory; a sandbox's
// working set is a few MB, and the OS page cache sits behind the pool anyway.
const startParams = [...PGlite.defaultStartParams, '-c', 'shared_buffers=32MB'];

async function openDir(dir: string): Promise<PGlite> {
  return PGlite.create({ fs: new PrivateNodeFS(dir), parsers: pgliteParsers, startParams });
}

// Node 24's V8 optimises a WebAssembly function with TurboFan once it is hot. One of PGlite's takes a
// ~600 MB compilation zone, freed a moment later: RSS peaked near 800 MB a second after `serve --memory`
// was ready, 500 MB above where it settles, and again under load. Optimising only function 0 (an import,
// never compiled) keeps every WebAssembly function in the process (undici's HTTP parser too) on Liftoff,
// V8's baseline tier. `--liftoff-only` would say so plainly, but V8 reads it only at start-up; this flag is
// read when a function turns hot, so setting it here applies, and only to a process that opens PGlite
// (docs/decisions/lean-memory.md has what it bought and cost).
const wasmTierUp = '--wasm-tier-up-filter=0';

/** Opens a PGlite database (creating it from the cached template when needed) and prepares it. */
export async function openPglite(options: OpenOptions): Promise<Db> {
  setFlagsFromString(wasmTierUp);
  const template = await ensureTemplate(`${pgliteVersion}:${options.templateKey}`, async (dir) => {
    const db = wrapPglite(await openDir(dir));
    await options.prepare(db);
    await db.close();
  });
  const scratch = options.memory ? makeScratchDir() : undefined;
  const dir = scratch ?? options.dataDir;
  if (!dir) throw new Error('openDatabase needs a dataDir or memory: true');
  if (!existsSync(join(dir, 'PG_VERSION'))) copyTemplate(template, dir);
  const db = wrapPglite(await openDir(dir), {
    onClose: async () => {
      if (scratch) rmSync(scratch, { recursive: true, force: true });
    },
  });
  await options.prepare(db);
  return db;
}
