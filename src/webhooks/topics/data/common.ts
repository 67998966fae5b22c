import { z } from 'zod';

export const money = z.number().describe('Amount with at most 2 decimals, computed exactly in minor units');
export const currency = z.string().describe('ISO 4217, default TRY');
export const timestamp = z.string().describe('RFC 3339 UTC timestamp ending in Z');

/** ISO text of a database time (sandbox clock), or null. */
export const isoOrNull = (d: Date | null | undefined): string | null => (d ? d.toISOString() : null);

/** A SQL `date` as YYYY-MM-DD (the driver hands dates over as UTC midnights). */
export const dateOnly = (d: Date | string): string => (typeof d === 'string' ? d.slice(0, 10) : d.toISOString().slice(0, 10));
