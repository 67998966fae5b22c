import { createHash } from 'node:crypto';
import type { Readable } from 'node:stream';
import { createGunzip } from 'node:zlib';
import { ApiError } from '../../../shared/problem.ts';
import {
  sandboxFileVersion,
  type SandboxFileEnd,
  type SandboxFileHeader,
  type SandboxFileSection,
} from '../../../shared/sandbox-file.ts';
import { portableTableNamed } from './manifest.ts';
import { importedColumns } from './portable-table.ts';
import { fileProblems, type FileWhere } from './problems.ts';

/** Limits of what a reader accepts, whatever the file claims. */
export interface ReadLimits {
  /** Uncompressed bytes in all (a small file that inflates without end is refused). */
  maxBytes: number;
  /** One line (one row): above any row Sandbay writes (a 1 MiB body is 2 MiB of \\x hex). */
  maxLineBytes: number;
}

/** The longest line any reader takes: a row of the largest body Sandbay keeps, with room to spare. */
const maxLineBytes = 4 * 2 ** 20;
/** What a file may inflate to, at most, whatever its size: a sandbox of 50,000 deliveries is ~100 MiB. */
const maxInflatedBytes = 2 * 2 ** 30;
/** How many times its compressed size a file may inflate to (JSON lines compress ~10×, a crafted file 1000×). */
const maxInflateRatio = 100;

const defaultReadLimits: ReadLimits = { maxBytes: maxInflatedBytes, maxLineBytes };

/** The limits for a file of `bytes` compressed bytes: memory and time follow what was uploaded. */
export const readLimitsFor = (bytes: number): ReadLimits => ({
  maxBytes: Math.min(maxInflatedBytes, Math.max(bytes, 2 ** 16) * maxInflateRatio),
  maxLineBytes,
});

/** A batch of rows is handed on at this many rows or this many bytes of lines, whichever comes first. */
const batchRows = 500;
const batchBytes = 2 ** 20;

/** A check of each row while verifying (it throws an ApiError naming the row); `line` is the row's line. */
type RowCheck = (table: string, columns: readonly string[], row: Record<string, unknown>, line: number) => void;

export type FileRecord =
  | { kind: 'header'; line: number; header: SandboxFileHeader }
  | { kind: 'section'; line: number; section: SandboxFileSection }
  | { kind: 'rows'; line: number; table: string; rows: Record<string, unknown>[] }
  | { kind: 'end'; line: number; end: SandboxFileEnd['end'] };

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** zlib's complaints as file problems: an early end is truncation, anything else damage. */
function inflateProblem(err: NodeJS.ErrnoException, where: FileWhere): ApiError {
  if (err.code === 'Z_BUF_ERROR') return fileProblems.truncated('the compressed data ends early.', where);
  // zlib's words for bytes that do not start a gzip stream at all (its magic number and method).
  if (/incorrect header check|unknown compression method/.test(err.message))
    return fileProblems.notASandboxFile('it is not gzip-compressed', where);
  return fileProblems.corrupt(`the compressed data is damaged (${err.message}).`, where);
}

/**
 * Reads a sandbox file as a stream: lines are framed, hashed and checked in order (a header of a
 * version this Sandbay reads, sections of known tables and columns, rows, an end line whose hash and
 * counts match), and yielded as records, rows in batches of at most 500 rows or 1 MiB of lines.
 * Memory holds one batch and one line. Any problem throws an ApiError naming what and where; nothing
 * is yielded after one.
 */
export async function* readSandboxFile(
  source: Readable,
  options: {
    limits?: ReadLimits;
    /** Frame, hash and count rows without yielding them; `check` each when given. */ verifyOnly?: boolean;
    check?: RowCheck;
  } = {},
): AsyncGenerator<FileRecord> {
  const limits = options.limits ?? defaultReadLimits;
  const gunzip = createGunzip();
  source.on('error', (err) => gunzip.destroy(err));
  source.pipe(gunzip);
  const hash = createHash('sha256');
  let line = 0;
  let total = 0;
  let pending: Buffer[] = [];
  let pendingBytes = 0;
  let header: SandboxFileHeader | undefined;
  let section: SandboxFileSection | undefined;
  let end: SandboxFileEnd['end'] | undefined;
  let rows: Record<string, unknown>[] = [];
  let rowsBytes = 0;
  let rowsLine = 0;
  /** The first line that made no sense, while reading on to tell damage from a malformed file. */
  let deferred: ApiError | undefined;
  const counted: Record<string, number> = {};
  const where = (extra: FileWhere = {}): FileWhere => ({
    line: line || 1,
    ...(section ? { table: section.table } : {}),
    ...extra,
  });

  const parse = (bytes: Buffer): Record<string, unknown> => {
    let value: unknown;
    try {
      value = JSON.parse(bytes.toString('utf8'));
    } catch (err) {
      if (!header) throw fileProblems.notASandboxFile('its first line is not JSON', where());
      throw fileProblems.malformed(`a line is not JSON (${(err as Error).message}).`, where());
    }
    if (!isObject(value)) throw fileProblems.malformed('a line is not a JSON object.', where());
    return value;
  };

  /** One complete line (without its newline): checked, hashed unless it is the end line, and turned into records. */
  function* take(bytes: Buffer): Generator<FileRecord> {
    line++;
    if (end) throw fileProblems.malformed('there is more after the end line.', where());
    const isRow = bytes[0] === 0x7b && bytes[1] === 0x22 && bytes[2] === 0x72 && bytes[3] === 0x22; // {"r"
    if (isRow && header && section) {
      counted[section.table] = (counted[section.table] ?? 0) + 1;
      if (options.verifyOnly && !options.check) return;
      const value = parse(bytes);
      if (!isObject(value.r)) throw fileProblems.malformed('a row is not a JSON object.', where());
      if (options.verifyOnly) return options.check!(section.table, section.columns, value.r, line);
      if (rows.length === 0) rowsLine = line;
      rows.push(value.r);
      rowsBytes += bytes.length;
      if (rows.length >= batchRows || rowsBytes >= batchBytes) yield* flush();
      return;
    }
    const value = parse(bytes);
    if (!header) {
      header = checkHeader(value, where());
      yield { kind: 'header', line, header };
      return;
    }
    yield* flush();
    if (isObject(value.end)) {
      section = undefined;
      end = checkEnd(value.end as SandboxFileEnd['end'], hash.digest('hex'), line - 1, counted, where());
      yield { kind: 'end', line, end };
      return;
    }
    section = checkSection(value, where({ table: typeof value.table === 'string' ? value.table : undefined }));
    yield { kind: 'section', line, section };
  }

  function* flush(): Generator<FileRecord> {
    if (rows.length === 0 || !section) return;
    const batch = rows;
    rows = [];
    rowsBytes = 0;
    yield { kind: 'rows', line: rowsLine, table: section.table, rows: batch };
  }

  try {
    for await (const chunk of gunzip as AsyncIterable<Buffer>) {
      total += chunk.length;
      if (total > limits.maxBytes) throw fileProblems.tooLarge('The uncompressed sandbox file', limits.maxBytes);
      // Every byte before the end line is hashed, a run of whole lines of a chunk in one update: per-line
      // updates would cost more than everything else the checking pass does.
      let start = 0;
      let unhashed = 0;
      for (let nl = chunk.indexOf(0x0a); nl !== -1; nl = chunk.indexOf(0x0a, start)) {
        const piece = chunk.subarray(start, nl);
        const bytes = pending.length ? Buffer.concat([...pending, piece]) : piece;
        const isEnd = bytes[0] === 0x7b && bytes.subarray(0, 7).toString('latin1') === '{"end":';
        if (isEnd) hash.update(chunk.subarray(unhashed, start));
        else if (pending.length) hash.update(bytes).update('\n');
        pending = [];
        pendingBytes = 0;
        start = nl + 1;
        if (isEnd || bytes !== piece) unhashed = start;
        if (deferred) {
          line++;
          if (isEnd) throw damagedOr(deferred, bytes, hash.digest('hex'));
          continue;
        }
        try {
          yield* take(bytes);
        } catch (err) {
          // While checking, a line that makes no sense may be damage: read on to the end line, whose hash says which.
          // The end line itself has nothing after it to tell (and its hash is spent): its problem stands.
          const headerLike = header || bytes.subarray(0, 11).toString('latin1') === '{"sandbay":';
          if (!options.verifyOnly || !headerLike || isEnd || !deferrable.has((err as ApiError).code)) throw err;
          deferred = err as ApiError;
        }
      }
      if (!end) hash.update(chunk.subarray(unhashed, start));
      if (start < chunk.length) {
        pending.push(chunk.subarray(start));
        pendingBytes += chunk.length - start;
        if (pendingBytes > limits.maxLineBytes)
          throw fileProblems.malformed(
            `a line is longer than ${limits.maxLineBytes} bytes.`,
            where({ line: line + 1 }),
          );
      }
    }
  } catch (err) {
    if (err instanceof ApiError) throw err;
    const e = err as NodeJS.ErrnoException;
    if (e.code?.startsWith('Z_')) throw inflateProblem(e, where({ line: line + 1, byte: gunzip.bytesWritten }));
    throw err;
  } finally {
    source.unpipe(gunzip);
    gunzip.destroy();
  }
  if (deferred) throw deferred;
  if (pendingBytes > 0) throw fileProblems.truncated('the last line is cut off.', where({ line: line + 1 }));
  if (!header) throw fileProblems.notASandboxFile('it is empty', { line: 1 });
  if (!end) throw fileProblems.truncated('it ends without its end line.', where({ line: line + 1 }));
}

/** Problems a damaged file would also cause: reported only if the file's hash shows it is whole. */
const deferrable = new Set(['import_malformed', 'import_not_sandbox_file', 'import_invalid']);

/** At the end line after a line that made no sense: damage if the hash disagrees, else that line's problem. */
function damagedOr(problem: ApiError, endLine: Buffer, sha256: string): ApiError {
  let end: unknown;
  try {
    end = JSON.parse(endLine.toString('utf8'));
  } catch {
    return problem;
  }
  const where = (problem.options.extra?.where ?? {}) as FileWhere;
  const claimed = isObject(end) && isObject(end.end) ? end.end.sha256 : undefined;
  return claimed === sha256
    ? problem
    : fileProblems.corrupt(
        `its content does not match the SHA-256 in its end line; it stops making sense at line ${where.line}.`,
        where,
      );
}

function checkHeader(value: Record<string, unknown>, where: FileWhere): SandboxFileHeader {
  if (value.sandbay !== 'sandbox')
    throw fileProblems.notASandboxFile('its first line is not a sandbox file header', where);
  const version = value.version;
  if (typeof version !== 'number' || !Number.isInteger(version) || version < 1)
    throw fileProblems.malformed('the header has no valid version.', where);
  if (version > sandboxFileVersion)
    throw fileProblems.newerVersion(version, sandboxFileVersion, String(value.sandbayVersion ?? 'unknown'));
  const sandbox = value.sandbox as SandboxFileHeader['sandbox'] | undefined;
  const clock = value.clock as SandboxFileHeader['clock'] | undefined;
  if (
    !isObject(sandbox) ||
    typeof sandbox.name !== 'string' ||
    !isObject(clock) ||
    typeof clock.now !== 'string' ||
    Number.isNaN(Date.parse(clock.now))
  ) {
    throw fileProblems.malformed('the header lacks the sandbox or its clock.', where);
  }
  if (value.secrets !== 'included' && value.secrets !== 'omitted')
    throw fileProblems.malformed('the header does not say whether secrets are included.', where);
  return value as unknown as SandboxFileHeader;
}

function checkSection(value: Record<string, unknown>, where: FileWhere): SandboxFileSection {
  if (typeof value.table !== 'string' || !Array.isArray(value.columns))
    throw fileProblems.malformed('a line is neither a row, a table section nor the end.', where);
  const table = portableTableNamed.get(value.table);
  if (!table) throw fileProblems.malformed(`unknown table ${value.table} (a newer Sandbay wrote it?).`, where);
  const known = new Set(importedColumns(table));
  const unknown = value.columns.filter((c) => typeof c !== 'string' || !known.has(c));
  if (unknown.length > 0)
    throw fileProblems.malformed(`unknown column(s) ${unknown.join(', ')} of table ${value.table}.`, where);
  return { table: value.table, columns: value.columns as string[] };
}

function checkEnd(
  end: SandboxFileEnd['end'],
  sha256: string,
  lines: number,
  counted: Record<string, number>,
  where: FileWhere,
): SandboxFileEnd['end'] {
  if (typeof end.sha256 !== 'string' || !isObject(end.rows))
    throw fileProblems.malformed('the end line lacks its hash or counts.', where);
  if (end.sha256 !== sha256)
    throw fileProblems.corrupt('its content does not match the SHA-256 in its end line.', where);
  if (end.lines !== lines)
    throw fileProblems.corrupt(`the end line counts ${end.lines} lines before it, the file has ${lines}.`, where);
  for (const [table, n] of Object.entries(end.rows)) {
    if ((counted[table] ?? 0) !== n)
      throw fileProblems.corrupt(`the end line counts ${n} rows of ${table}, the file has ${counted[table] ?? 0}.`, {
        ...where,
        table,
      });
  }
  return end;
}
