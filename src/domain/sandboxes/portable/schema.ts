import { sandboxFileVersion } from '../../../shared/sandbox-file.ts';
import { portableTables } from './manifest.ts';
import { importedColumns } from './portable-table.ts';

const timestamp = { type: 'string', description: 'RFC 3339' };

/**
 * The JSON Schema of one line of a sandbox file (docs/sandbox-file.schema.json, written from this by
 * `npm run docs:sandbox-file`): a header, a table section (its columns as the manifest declares them),
 * a row, or the end line.
 */
export function sandboxFileSchema(): Record<string, unknown> {
  const sections = portableTables.map((t) => ({
    type: 'object',
    additionalProperties: false,
    required: ['table', 'columns'],
    properties: {
      table: { const: t.table },
      columns: { type: 'array', uniqueItems: true, items: { enum: importedColumns(t) } },
    },
  }));
  return {
    $schema: 'https://json-schema.org/draft/2020-12/schema',
    $id: 'https://sandbay.dev/schemas/sandbox-file.schema.json',
    title: `Sandbay sandbox file, version ${sandboxFileVersion}: one line`,
    description:
      "A sandbox file is gzip-compressed UTF-8 text, one JSON object per line (each ending in \\n): the header, then for each table a section line followed by its rows, then the end line. The end line's sha256 is the SHA-256 (hex) of every byte before it, uncompressed.",
    oneOf: [{ $ref: '#/$defs/header' }, { $ref: '#/$defs/section' }, { $ref: '#/$defs/row' }, { $ref: '#/$defs/end' }],
    $defs: {
      header: {
        type: 'object',
        additionalProperties: false,
        required: [
          'sandbay',
          'version',
          'sandbayVersion',
          'exportedAt',
          'driver',
          'sandbox',
          'clock',
          'secrets',
          'webhookTestSecret',
        ],
        properties: {
          sandbay: { const: 'sandbox' },
          version: {
            type: 'integer',
            minimum: 1,
            description: `The format version; this Sandbay writes ${sandboxFileVersion} and reads up to it`,
          },
          sandbayVersion: { type: 'string' },
          exportedAt: { ...timestamp, description: 'Real time of the export' },
          driver: { enum: ['pglite', 'postgres'], description: 'The database it was exported from' },
          sandbox: {
            type: 'object',
            additionalProperties: false,
            required: ['id', 'name', 'notes', 'createdAt'],
            properties: {
              id: { type: 'string' },
              name: { type: 'string' },
              notes: { type: ['string', 'null'] },
              createdAt: timestamp,
            },
          },
          clock: {
            type: 'object',
            additionalProperties: false,
            required: ['now', 'offsetMs'],
            properties: {
              now: { ...timestamp, description: 'The sandbox clock at export: an import resumes from it' },
              offsetMs: { type: 'integer' },
            },
          },
          secrets: {
            enum: ['included', 'omitted'],
            description: 'omitted: every secret column is null and an import issues new secrets',
          },
          webhookTestSecret: { type: ['string', 'null'] },
        },
      },
      section: { description: "Starts a table's rows: the columns its rows carry", oneOf: sections },
      row: {
        type: 'object',
        additionalProperties: false,
        required: ['r'],
        properties: {
          r: {
            type: 'object',
            description:
              "One row of the current section's table, column name → value (timestamps RFC 3339, bytea as \\\\x hex)",
          },
        },
      },
      end: {
        type: 'object',
        additionalProperties: false,
        required: ['end'],
        properties: {
          end: {
            type: 'object',
            additionalProperties: false,
            required: ['rows', 'lines', 'sha256'],
            properties: {
              rows: {
                type: 'object',
                additionalProperties: { type: 'integer', minimum: 0 },
                description: 'Rows per table',
              },
              lines: { type: 'integer', minimum: 1, description: 'Lines before this one' },
              sha256: { type: 'string', pattern: '^[0-9a-f]{64}$' },
              hmac: {
                type: 'string',
                pattern: '^[0-9a-f]{64}$',
                description:
                  "HMAC-SHA256 of sha256 under the exporting Sandbay's key: only that Sandbay can verify it (an import reports signed-by-this-sandbay)",
              },
            },
          },
        },
      },
    },
  };
}
