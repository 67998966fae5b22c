import { z } from 'zod';

export {
  CreatedSandbox,
  Credentials,
  ResetResult,
  Sandbox,
  SandboxSummary,
  Session,
} from '../../shared/schemas/sandbox.ts';

export const CreateSandboxRequest = z
  .object({ name: z.string().trim().max(100, 'At most 100 characters.').optional() })
  .strict()
  .meta({ id: 'CreateSandboxRequest' });

export const ResetRequest = z
  .object({
    scope: z.enum(['data', 'all']).default('data').describe('all also deletes endpoints and revokes every token'),
  })
  .strict()
  .meta({ id: 'ResetRequest' });
