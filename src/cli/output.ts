/** Machine-readable output for --json: one JSON document on stdout. */
export function printJson(value: unknown): void {
  process.stdout.write(`${JSON.stringify(value, null, 2)}\n`);
}

/** One line on stdout. */
export function say(line: string): void {
  process.stdout.write(`${line}\n`);
}

/**
 * ", signed standard-webhooks + …" after a line about a target that does not sign in Sandbay's scheme alone; '' when it
 * does.
 */
export const signedWith = (schemes: readonly string[]) =>
  schemes.join() === 'sandbay' ? '' : `, signed ${schemes.join(' + ')}`;

/** Left-aligned columns, two spaces apart, headed by upper-case titles (as the Stripe CLI prints lists). */
export function table(headers: string[], rows: string[][]): string[] {
  const widths = headers.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]?.length ?? 0)));
  const line = (cells: string[]) =>
    cells
      .map((c, i) => (i === cells.length - 1 ? c : c.padEnd(widths[i])))
      .join('  ')
      .trimEnd();
  return [line(headers.map((h) => h.toUpperCase())), ...rows.map(line)];
}

/** A span of seconds as 1d2h, 1h30m, 2m30s or 45s. */
export function formatSpan(totalSeconds: number): string {
  let rest = Math.round(Math.abs(totalSeconds));
  const parts: string[] = [];
  for (const [unit, size] of [
    ['d', 86_400],
    ['h', 3600],
    ['m', 60],
    ['s', 1],
  ] as const) {
    if (rest >= size || (unit === 's' && parts.length === 0)) {
      parts.push(`${Math.floor(rest / size)}${unit}`);
      rest %= size;
    }
  }
  return parts.slice(0, 2).join('');
}

/** "in 2m30s" or "5s ago", measured from `nowMs` (the sandbox clock when known). */
export function relative(iso: string, nowMs: number): string {
  const seconds = (Date.parse(iso) - nowMs) / 1000;
  return seconds >= 0 ? `in ${formatSpan(seconds)}` : `${formatSpan(seconds)} ago`;
}

/** The local wall-clock time as YYYY-MM-DD HH:MM:SS, for live lines. */
export function localTimestamp(date = new Date()): string {
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())} ${pad(date.getHours())}:${pad(date.getMinutes())}:${pad(date.getSeconds())}`;
}

/** Cuts a string to `max` characters with an ellipsis. */
export const clip = (text: string, max: number) => (text.length > max ? `${text.slice(0, max - 1)}…` : text);
