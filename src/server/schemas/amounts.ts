import { z } from 'zod';
import { toMinor } from '../../shared/money.ts';

/** A money amount in a request: at most 2 decimals (read exactly into minor units), up to 10 million. */
export const Amount = z
  .number()
  .min(0, 'Must not be negative.')
  .max(10_000_000, 'At most 10,000,000.')
  .refine((v) => toMinor(v) !== null, 'At most 2 decimals.')
  .describe('Amount with at most 2 decimals');

export const PositiveAmount = Amount.refine((v) => v > 0, 'Must be greater than 0.');

/** Minor units of an amount the schema already accepted. */
export const minor = (amount: number): number => toMinor(amount)!;

/** Minor units of an optional amount. */
export const minorOrUndefined = (amount: number | undefined): number | undefined =>
  amount === undefined ? undefined : minor(amount);
