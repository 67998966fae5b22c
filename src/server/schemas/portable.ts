import { z } from 'zod';
import { Timestamp } from './common.ts';
import { CreatedSandbox } from './sandbox.ts';

const flag = z.enum(['true', 'false']).transform((v) => v === 'true');

export const ExportQuery = z.object({
  includeSecrets: flag
    .optional()
    .describe(
      'Also write endpoint secrets and the webhook test secret (needs webhooks:write); without, an import issues new ones',
    ),
  notes: z.string().max(2000).optional().describe("Notes to carry in the file instead of the sandbox's own"),
});

export const ImportQuery = z.object({
  name: z.string().trim().min(1).max(100).optional().describe("The new sandbox's name (default: the file's)"),
});

const ImportReport = z
  .object({
    source: z.object({
      sandboxId: z.string(),
      name: z.string(),
      exportedAt: Timestamp,
      sandbayVersion: z.string(),
      driver: z.string(),
    }),
    rows: z.record(z.string(), z.number().int()).describe('Rows imported per table'),
    secrets: z.enum(['imported', 'issued']).describe('issued: the file had no secrets and new ones were made'),
    newSecrets: z
      .array(z.object({ endpointId: z.string(), url: z.string() }))
      .describe('Endpoints that sign with new secrets: their past attempts were signed with the old ones'),
    clock: z
      .object({ now: Timestamp, offsetMs: z.number() })
      .describe('The sandbox clock, resumed from the time in the file'),
    notes: z.string().nullable(),
    durationMs: z.number(),
  })
  .meta({ id: 'ImportReport' });

export const ImportedSandbox = CreatedSandbox.extend({ report: ImportReport }).meta({ id: 'ImportedSandbox' });
