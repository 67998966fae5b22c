/**
 * The sandbox file (docs/portable.md, docs/sandbox-file.schema.json): gzip-compressed lines of JSON,
 * a header, then for each table a section line and its rows, then an end line with the integrity hash.
 */

/** The format version this Sandbay writes and the newest it reads. */
export const sandboxFileVersion = 1;
export const sandboxFileMediaType = 'application/vnd.sandbay.sandbox+gzip';

/** The first line. */
export interface SandboxFileHeader {
  sandbay: 'sandbox';
  version: number;
  sandbayVersion: string;
  exportedAt: string;
  driver: 'pglite' | 'postgres';
  sandbox: { id: string; name: string; notes: string | null; createdAt: string };
  /** The sandbox clock at export: an import resumes it from `now`. */
  clock: { now: string; offsetMs: number };
  /** `omitted`: every secret is null in the file and an import issues new ones. */
  secrets: 'included' | 'omitted';
  webhookTestSecret: string | null;
}

/** Starts a table's rows. */
export interface SandboxFileSection {
  table: string;
  columns: string[];
}

/**
 * The last line: row counts and the SHA-256 (hex) of every byte before this line, uncompressed (it
 * detects corruption), and the exporting Sandbay's HMAC of that hash (only it can verify it).
 */
export interface SandboxFileEnd {
  end: { rows: Record<string, number>; lines: number; sha256: string; hmac?: string };
}

/** What an import reports beside the new sandbox and its credentials. */
export interface ImportReport {
  source: { sandboxId: string; name: string; exportedAt: string; sandbayVersion: string; driver: string };
  rows: Record<string, number>;
  secrets: 'imported' | 'issued';
  /** Endpoints that sign with new secrets (a file without secrets): past signatures do not verify with them. */
  newSecrets: { endpointId: string; url: string }[];
  /** signed-by-this-sandbay: the file carries this Sandbay's HMAC, so it is as this Sandbay exported it. */
  signature: 'signed-by-this-sandbay' | 'unsigned';
  /**
   * Every receiver the file names: its endpoints (arrived disabled) and the URLs whose test webhooks were
   * dead-lettered.
   */
  receivers: {
    endpoints: { endpointId: string; url: string; pendingDeliveries: number }[];
    deadLettered: { url: string; deliveries: number }[];
  };
  clock: { now: string; offsetMs: number };
  notes: string | null;
  durationMs: number;
}
