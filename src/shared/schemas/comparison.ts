import { z } from 'zod';

const Side = z.object({
  deliveryId: z.string(),
  attempt: z.number().int().nullable().describe('The attempt compared; null when the delivery has none yet'),
  topic: z.string(),
  status: z.string(),
});

const ValueChange = z.object({ from: z.unknown(), to: z.unknown() });

const JsonChange = z
  .object({
    path: z.string().describe('A JSON Pointer into the envelope, e.g. /data/total'),
    op: z.enum(['add', 'remove', 'replace']),
    from: z.unknown().optional().describe('The value before (absent for add)'),
    to: z.unknown().optional().describe('The value after (absent for remove)'),
  })
  .meta({ id: 'JsonChange' });

const HeaderChange = z
  .object({
    name: z.string().describe('Lowercase'),
    from: z.string().nullable().describe('null: absent on that side'),
    to: z.string().nullable(),
  })
  .meta({ id: 'HeaderChange' });

export const DeliveryComparison = z
  .object({
    from: Side,
    to: Side,
    envelope: z.array(JsonChange).describe('The body parsed, compared by path; empty when the same'),
    bodyIdentical: z.boolean().describe('The exact bytes sent are the same'),
    requestHeaders: z.array(HeaderChange).describe('The headers the attempts went out with, where they differ'),
    signatureInputs: z
      .array(z.object({ name: z.string(), from: z.unknown(), to: z.unknown() }))
      .describe('What the signatures were computed over, where it differs: schemes, id, timestamp, body length'),
    response: z
      .object({
        status: ValueChange,
        durationMs: ValueChange,
        error: ValueChange,
        headers: z.array(HeaderChange),
        body: z.object({ same: z.boolean(), from: z.string(), to: z.string() }),
      })
      .nullable()
      .describe("The receiver's answers, side by side; null when either side has no attempt"),
  })
  .meta({ id: 'DeliveryComparison' });
