/** One line of `npm run bench`: what was measured, the figure, and the target if it has one. */
export interface BenchRow {
  section: string;
  metric: string;
  value: number;
  unit: string;
  /** e.g. '≤ 1.0 s' — printed beside the value. */
  target?: string;
  /** Whether the value meets the target (undefined when there is none). */
  ok?: boolean;
}

/** A row maker for one section of the table: `row('orders/s', 812, 'req/s', '≥ 500', true)`. */
export const sectionRows =
  (section: string) =>
  (metric: string, value: number, unit: string, target?: string, ok?: boolean): BenchRow => ({
    section,
    metric,
    value,
    unit,
    target,
    ok,
  });

export function percentile(samples: number[], p: number): number {
  const sorted = [...samples].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))];
}

const fmt = (v: number) => (Math.abs(v) >= 100 ? v.toFixed(0) : Math.abs(v) >= 10 ? v.toFixed(1) : v.toFixed(2));

export function printTable(rows: BenchRow[]): void {
  const lines = rows.map((r) => [
    r.section,
    r.metric,
    `${fmt(r.value)} ${r.unit}`,
    r.target ?? '',
    r.ok === undefined ? '' : r.ok ? 'ok' : 'MISS',
  ]);
  const header = ['section', 'metric', 'value', 'target', ''];
  const widths = header.map((h, i) => Math.max(h.length, ...lines.map((l) => l[i].length)));
  const print = (cols: string[]) =>
    console.log(
      cols
        .map((c, i) => c.padEnd(widths[i]))
        .join('  ')
        .trimEnd(),
    );
  print(header);
  print(widths.map((w) => '-'.repeat(w)));
  lines.forEach(print);
}
