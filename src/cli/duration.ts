import { CliError } from './errors.ts';

const unitSeconds: Record<string, number> = { d: 86_400, h: 3600, m: 60, s: 1 };

/**
 * Parses a duration such as 90s, 2h, 1d, 1h30m or 45 (seconds) into seconds. Units go
 * from largest to smallest, each at most once, as in Go's time.ParseDuration.
 */
export function parseDuration(text: string): number {
  const input = text.trim().toLowerCase();
  if (/^\d+(\.\d+)?$/.test(input)) return positive(Number(input), text);
  const parts = [...input.matchAll(/(\d+(?:\.\d+)?)([dhms])/g)];
  const order = parts.map((p) => 'dhms'.indexOf(p[2]));
  const wellFormed =
    parts.length > 0 && parts.map((p) => p[0]).join('') === input && order.every((o, i) => i === 0 || o > order[i - 1]);
  if (!wellFormed) throw new CliError(`not a duration: ${text} (use e.g. 90s, 10m, 2h, 1d or 1h30m)`);
  return positive(
    parts.reduce((sum, p) => sum + Number(p[1]) * unitSeconds[p[2]], 0),
    text,
  );
}

function positive(seconds: number, text: string): number {
  if (!(seconds > 0)) throw new CliError(`the duration must be more than zero, not ${text}`);
  return seconds;
}
