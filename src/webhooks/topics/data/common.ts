import { z } from 'zod';
import { toMinor } from '../../../shared/money.ts';

// Refined, so a test webhook's own data (`trigger --override total=10.005`) is held to SPEC §2 like the API.
export const money = z
  .number()
  .refine((v) => toMinor(v) !== null, 'at most 2 decimals (money is exact, SPEC §2)')
  .describe('Amount with at most 2 decimals, computed exactly in minor units');
export const currency = z.string().describe('ISO 4217, default TRY');
export const timestamp = z.string().describe('RFC 3339 UTC timestamp ending in Z');

/** ISO text of a database time (sandbox clock), or null. */
export const isoOrNull = (d: Date | null | undefined): string | null => (d ? d.toISOString() : null);

/** A SQL `date` as YYYY-MM-DD (the driver hands dates over as UTC midnights). */
export const dateOnly = (d: Date | string): string =>
  typeof d === 'string' ? d.slice(0, 10) : d.toISOString().slice(0, 10);
