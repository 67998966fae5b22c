import { z } from 'zod';
import { catcherModes } from '../../shared/schemas/catchers.ts';

export { catcherModes, Catcher, CaughtRequest } from '../../shared/schemas/catchers.ts';

export const CatcherName = z.object({
  name: z
    .string()
    .regex(
      /^[a-z0-9][a-z0-9-]{0,62}$/,
      'Lowercase letters, digits and dashes, at most 63, starting with a letter or digit.',
    ),
});

/** Where a catcher receives: its sandbox and its name. */
export const CatcherAddress = CatcherName.extend({ sandbox: z.string().min(1).max(100) });

export const CatcherRequest = z
  .object({
    mode: z
      .enum(catcherModes)
      .optional()
      .describe('status: answer `status`; timeout: never answer; redirect: answer 302'),
    status: z.number().int().min(200, 'A status from 200 to 599.').max(599, 'A status from 200 to 599.').optional(),
    delayMs: z.number().int().min(0).max(30_000, 'At most 30000 ms.').optional().describe('Wait before answering'),
  })
  .strict()
  .meta({ id: 'CatcherRequest' });
