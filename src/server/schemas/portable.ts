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
    signature: z
      .enum(['signed-by-this-sandbay', 'unsigned'])
      .describe(
        "signed-by-this-sandbay: the end line's HMAC verifies under this Sandbay's key, so this Sandbay exported the file as it is; unsigned: another Sandbay's file or an edited one (checked like any input, vouched for by nothing)",
      ),
    receivers: z
      .object({
        endpoints: z.array(z.object({ endpointId: z.string(), url: z.string(), pendingDeliveries: z.number().int() })),
        deadLettered: z.array(z.object({ url: z.string(), deliveries: z.number().int() })),
      })
      .describe(
        'Every receiver the file names. Its endpoints arrived disabled (reason imported): nothing is sent until one is enabled, then its pending deliveries resume; POST /api/v1/webhooks/endpoints/enable {"disabledReason": "imported"} enables them all. Pending test webhooks to other URLs were dead-lettered (replay them to send).',
      ),
    clock: z
      .object({ now: Timestamp, offsetMs: z.number() })
      .describe('The sandbox clock, resumed from the time in the file'),
    notes: z.string().nullable(),
    durationMs: z.number(),
  })
  .meta({ id: 'ImportReport' });

export const ImportedSandbox = CreatedSandbox.extend({ report: ImportReport }).meta({ id: 'ImportedSandbox' });
