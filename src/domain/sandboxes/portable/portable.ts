import { createReadStream, createWriteStream } from 'node:fs';
import { mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Db } from '../../../db/database.ts';
import type { Invalidations } from '../../../db/invalidations.ts';
import type { SandboxClock } from '../../../schedule/clock.ts';
import type { Sandboxes } from '../sandboxes.ts';
import type { OutboundPolicy } from '../../../webhooks/outbound/policy.ts';
import { importSandboxFile, type ImportOptions } from './importer.ts';
import { fileProblems, type FileWhere, type RowWhere } from './problems.ts';
import { columnTypes, type DomainRules } from './row-rules.ts';
import { FileSignature } from './signature.ts';
import { writeSandboxFile } from './writer.ts';

export interface PortableDeps {
  db: Db;
  sandboxes: Sandboxes;
  clock: SandboxClock;
  invalidations: Invalidations;
  sandbayVersion: string;
  /** This server's base URL (its public URL when it has one): imported catcher URLs point here. */
  baseUrl?: () => string;
  /** Judges the receivers a file names, as at registration (on a shared server). */
  policy: OutboundPolicy;
  /** The database's key for signing exported files (meta `file_signing_key`). */
  fileKey: string;
  /** The API's rules for a file's rows (the request schemas, which live with the routes). */
  domainRules: DomainRules;
}

/** Imports one server runs at once: each holds a batch and a line in memory, and the database a transaction. */
const maxConcurrentImports = 2;

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
  private readonly signature: FileSignature;
  private columns?: ReturnType<typeof columnTypes>;
  private running = 0;

  constructor(private readonly deps: PortableDeps) {
    this.signature = new FileSignature(deps.fileKey);
  }

  /** Takes one of the server's import slots, or answers 429 when all are taken; call the result when done. */
  takeImportSlot(): () => void {
    if (this.running >= maxConcurrentImports) throw fileProblems.busy(this.running);
    this.running++;
    let done = false;
    return () => {
      if (!done) this.running--;
      done = true;
    };
  }

  /** Writes the sandbox to a scratch file; the caller streams the file and removes it. */
  async exportToFile(
    tenantId: string,
    options: { includeSecrets: boolean; notes?: string },
  ): Promise<ScratchFile & { bytes: number }> {
    const file = await scratchFile('export.sandbay');
    try {
      await writeSandboxFile(this.deps.db, tenantId, createWriteStream(file.path), {
        includeSecrets: options.includeSecrets,
        notes: options.notes,
        sandbayVersion: this.deps.sandbayVersion,
        realNow: this.deps.clock.real(),
        sign: (sha256) => this.signature.sign(sha256),
      });
      return { ...file, bytes: (await stat(file.path)).size };
    } catch (err) {
      await file.remove();
      throw err;
    }
  }

  /** Imports a sandbox file on disk as a new sandbox. */
  importFromFile(path: string, options: ImportOptions = {}) {
    const deps = {
      ...this.deps,
      columnTypes: () => (this.columns ??= columnTypes(this.deps.db)),
      fileSignature: this.signature,
      assertReceiverAllowed: (url: string, where: FileWhere) => this.assertReceiverAllowed(url, where),
    };
    return importSandboxFile(deps, () => createReadStream(path), options);
  }

  /** The outbound policy's verdict on a receiver a file names, as a problem naming its row. */
  private async assertReceiverAllowed(url: string, where: FileWhere): Promise<void> {
    try {
      await this.deps.policy.assertAllowed(url, `/${where.field}`);
    } catch (err) {
      if ((err as { code?: string }).code !== 'blocked_by_policy') throw err;
      throw fileProblems.invalid(where as RowWhere, (err as Error).message);
    }
  }
}
