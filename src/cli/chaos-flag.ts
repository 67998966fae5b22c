import type { EndpointChaos } from '../shared/api-types.ts';
import { parseDuration } from './duration.ts';
import { CliError } from './errors.ts';

const usage = 'use e.g. --chaos duplicate=0.2,reorder=5s,delay=500ms';

function milliseconds(text: string, key: string): number {
  if (/^\d+ms$/.test(text.trim())) return Number(text.trim().slice(0, -2));
  if (text.trim() === '0') return 0;
  try {
    return Math.round(parseDuration(text) * 1000);
  } catch {
    throw new CliError(`--chaos ${key}=${text} is not a duration (${usage})`);
  }
}

/** Parses `--chaos duplicate=0.2,reorder=5s,delay=500ms` (and `--seed N`) into an endpoint's chaos settings. */
export function parseChaos(text: string, seed?: string): Omit<EndpointChaos, 'seed'> & { seed?: number } {
  const chaos = { duplicateRate: 0, reorderWindowMs: 0, delayMs: 0 };
  for (const part of text
    .split(',')
    .map((p) => p.trim())
    .filter(Boolean)) {
    const [key, value = ''] = part.split('=');
    if (key === 'duplicate') {
      const rate = Number(value);
      if (value.trim() === '' || !(rate >= 0 && rate <= 1))
        throw new CliError(`--chaos duplicate=${value} must be a rate from 0 to 1`);
      chaos.duplicateRate = rate;
    } else if (key === 'reorder') chaos.reorderWindowMs = milliseconds(value, key);
    else if (key === 'delay') chaos.delayMs = milliseconds(value, key);
    else throw new CliError(`unknown --chaos fault ${key} (${usage})`);
  }
  if (seed === undefined) return chaos;
  if (!/^\d{1,10}$/.test(seed) || Number(seed) > 2 ** 31 - 1)
    throw new CliError(`--seed must be an integer from 0 to ${2 ** 31 - 1}, not ${seed}`);
  return { ...chaos, seed: Number(seed) };
}

/** "duplicate 20 %, reorder within 5000 ms, delay 500 ms (seed 7)" */
export function describeChaos(chaos: EndpointChaos): string {
  const faults = [
    chaos.duplicateRate ? `duplicate ${Math.round(chaos.duplicateRate * 1000) / 10} %` : '',
    chaos.reorderWindowMs ? `reorder within ${chaos.reorderWindowMs} ms` : '',
    chaos.delayMs ? `delay ${chaos.delayMs} ms` : '',
  ].filter(Boolean);
  return `${faults.join(', ')} (seed ${chaos.seed})`;
}
