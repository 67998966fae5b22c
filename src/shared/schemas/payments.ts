import { z } from 'zod';

export const TestCard = z
  .object({
    number: z.string(),
    brand: z.string(),
    provider: z.string(),
    outcome: z.enum(['captured', 'requires_action', 'declined']),
    declineCode: z.string().nullable(),
    refund: z.enum(['succeeds', 'fails']),
    description: z.string(),
  })
  .meta({ id: 'TestCard' });
