import { createReadStream, createWriteStream } from 'node:fs';
import { mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Db } from '../../../db/database.ts';
import type { Invalidations } from '../../../db/invalidations.ts';
import type { SandboxClock } from '../../../schedule/clock.ts';
import type { Sandboxes } from '../sandboxes.ts';
import { importSandboxFile, type ImportOptions } from './importer.ts';
import { writeSandboxFile } from './writer.ts';

export interface PortableDeps {
  db: Db;
  sandboxes: Sandboxes;
  clock: SandboxClock;
  invalidations: Invalidations;
  sandbayVersion: string;
  /** This server's base URL (its public URL when it has one): imported catcher URLs point here. */
  baseUrl?: () => string;
}

/** A file in a scratch folder of its own, removed by `remove` (also when the file was never written). */
export interface ScratchFile {
  path: string;
  remove(): Promise<void>;
}

/** A scratch folder for one export or upload, in the OS temp dir. */
export async function scratchFile(name: string): Promise<ScratchFile> {
  const dir = await mkdtemp(join(tmpdir(), 'sandbay-portable-'));
  return { path: join(dir, name), remove: () => rm(dir, { recursive: true, force: true }) };
}

/**
 * Sandboxes as files (SPEC §12): export into a scratch file (the database snapshot is read at disk
 * speed and released before a slow client reads the file), import from a file that was uploaded whole.
 */
export class PortableSandboxes {
  constructor(private readonly deps: PortableDeps) {}

  /** Writes the sandbox to a scratch file, and says its name; the caller streams the file and removes it. */
  async exportToFile(
    tenantId: string,
    options: { includeSecrets: boolean; notes?: string },
  ): Promise<ScratchFile & { bytes: number; name: string }> {
    const file = await scratchFile('export.sandbay');
    try {
      const { name } = await writeSandboxFile(this.deps.db, tenantId, createWriteStream(file.path), {
        includeSecrets: options.includeSecrets,
        notes: options.notes,
        sandbayVersion: this.deps.sandbayVersion,
        realNow: this.deps.clock.real(),
      });
      return { ...file, bytes: (await stat(file.path)).size, name };
    } catch (err) {
      await file.remove();
      throw err;
    }
  }

  /** Imports a sandbox file on disk as a new sandbox. */
  importFromFile(path: string, options: ImportOptions = {}) {
    return importSandboxFile(this.deps, () => createReadStream(path), options);
  }
}
