import { ApiError, type FieldError } from '../../../shared/problem.ts';

/**
 * Where in a sandbox file a problem is: the line (uncompressed, from 1), its table, or a byte of the compressed file.
 */
export interface FileWhere {
  line?: number;
  table?: string;
  /** The row's number within its table's section (from 1), and its column. */
  row?: number;
  field?: string;
  byte?: number;
}

/** A field of one row: `errors[].path` is /<table>/<row>/<field>[/…] (the header is table "header", row 1). */
export type RowWhere = Required<Pick<FileWhere, 'line' | 'table' | 'row' | 'field'>>;

const at = (where: FileWhere) =>
  [
    where.line !== undefined ? `line ${where.line}` : '',
    where.table ? `table ${where.table}` : '',
    where.row !== undefined ? `row ${where.row}` : '',
    where.field ? `field ${where.field}` : '',
    where.byte !== undefined ? `compressed byte ${where.byte}` : '',
  ]
    .filter(Boolean)
    .join(', ');

/** A problem with an imported file, naming what and where (problem+json extension member `where`). */
function fileProblem(status: number, code: string, what: string, where: FileWhere, errors?: FieldError[]): ApiError {
  const place = at(where);
  const sentence = what.replace(/\.$/, '');
  return new ApiError(status, code, `${sentence}${place ? ` (at ${place})` : ''}. Nothing was imported.`, {
    errors,
    extra: { where },
  });
}

export const fileProblems = {
  notASandboxFile: (why: string, where: FileWhere = {}) =>
    fileProblem(422, 'import_not_sandbox_file', `This is not a Sandbay sandbox file: ${why}.`, where),
  malformed: (why: string, where: FileWhere) =>
    fileProblem(422, 'import_malformed', `The sandbox file is malformed: ${why}`, where),
  truncated: (why: string, where: FileWhere) =>
    fileProblem(422, 'import_truncated', `The sandbox file is truncated: ${why}`, where),
  // A SHA-256 inside the file detects damage, not a deliberate edit (whoever edits can recompute it).
  corrupt: (why: string, where: FileWhere) =>
    fileProblem(422, 'import_corrupt', `The sandbox file is corrupt: ${why}`, where),
  /** A row that breaks a rule the API or the database would enforce: errors[] names table, row and field. */
  invalid: (where: RowWhere, message: string, pointer = `/${where.field}`) =>
    fileProblem(
      422,
      'import_invalid',
      `The sandbox file holds a value Sandbay does not accept: ${where.field}: ${message}`,
      where,
      [{ path: `/${where.table}/${where.row}${pointer}`, message }],
    ),
  newerVersion: (version: number, supported: number, by: string) =>
    fileProblem(
      422,
      'import_version_unsupported',
      `The sandbox file has format version ${version} (written by Sandbay ${by}); this Sandbay reads versions up to ${supported}: upgrade Sandbay to import it.`,
      { line: 1 },
    ),
  conflict: (why: string, where: FileWhere) =>
    fileProblem(409, 'import_conflict', `The sandbox file's rows conflict: ${why}`, where),
  busy: (running: number) =>
    new ApiError(
      429,
      'import_busy',
      `This server is already importing ${running} sandbox files, as many as it takes at once: try again shortly.`,
      { headers: { 'Retry-After': '5' } },
    ),
  tooLarge: (what: string, limit: number) =>
    new ApiError(
      413,
      'payload_too_large',
      `${what} is over the import limit of ${limit} bytes (${Math.round(limit / 2 ** 20)} MiB). Nothing was imported.`,
      { extra: { limit } },
    ),
};

/** Every code an import may answer, by status (for the route's OpenAPI errors). */
export const importErrorCodes = {
  409: ['import_conflict'],
  413: ['payload_too_large'],
  429: ['import_busy'],
  415: ['unsupported_media_type'],
  422: [
    'import_not_sandbox_file',
    'import_malformed',
    'import_truncated',
    'import_corrupt',
    'import_invalid',
    'import_version_unsupported',
  ],
} as const;
