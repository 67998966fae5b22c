import type { EndpointChaos } from '../../../shared/api-types.ts';

/** The chaos fields as typed: percent, ms, ms and an optional seed. */
export interface ChaosDraft {
  duplicatePercent: string;
  reorderMs: string;
  delayMs: string;
  seed: string;
}

export const draftOf = (chaos: EndpointChaos | null): ChaosDraft => ({
  duplicatePercent: chaos ? String(Math.round(chaos.duplicateRate * 1000) / 10) : '0',
  reorderMs: String(chaos?.reorderWindowMs ?? 0),
  delayMs: String(chaos?.delayMs ?? 0),
  seed: chaos ? String(chaos.seed) : '',
});

/** The API's chaos object from a draft: all-zero faults turn chaos off. */
export function chaosOf(d: ChaosDraft): Partial<EndpointChaos> | null {
  const chaos = {
    duplicateRate: Number(d.duplicatePercent || 0) / 100,
    reorderWindowMs: Number(d.reorderMs || 0),
    delayMs: Number(d.delayMs || 0),
    ...(d.seed.trim() ? { seed: Number(d.seed) } : {}),
  };
  return chaos.duplicateRate || chaos.reorderWindowMs || chaos.delayMs ? chaos : null;
}

const hourMs = 3_600_000;
const maxSeed = 2 ** 31 - 1;

const isWholeIn = (text: string, max: number) => {
  const n = Number(text.trim() || 0);
  return Number.isInteger(n) && n >= 0 && n <= max;
};

/**
 * What is wrong with a draft, field by field, in the units the form shows: the API takes the
 * duplicate rate as 0–1 and would answer "expected number to be <=1" for a percent of 250.
 */
export function chaosProblems(d: ChaosDraft): Partial<Record<keyof ChaosDraft, string>> {
  const problems: Partial<Record<keyof ChaosDraft, string>> = {};
  const percent = Number(d.duplicatePercent.trim() || 0);
  if (!Number.isFinite(percent) || percent < 0 || percent > 100)
    problems.duplicatePercent = 'A percentage from 0 to 100.';
  const ms = 'Whole milliseconds from 0 to 3600000 (1 hour).';
  if (!isWholeIn(d.reorderMs, hourMs)) problems.reorderMs = ms;
  if (!isWholeIn(d.delayMs, hourMs)) problems.delayMs = ms;
  if (!isWholeIn(d.seed, maxSeed)) problems.seed = `A whole number from 0 to ${maxSeed}, or empty for a random one.`;
  return problems;
}
