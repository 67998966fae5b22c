import { z } from 'zod';

export { listOf, Timestamp } from '../../shared/schemas/common.ts';
export const Money = z.number().describe('Amount with at most 2 decimals, computed exactly in minor units');

export const idParam = z.object({ id: z.string().min(1).max(100) });

/** A bounded, trimmed, non-empty string (SPEC §4: "non-empty strings up to 100 characters"). */
export const text = (max: number) =>
  z.string().trim().min(1, 'Must not be empty.').max(max, `At most ${max} characters.`);
