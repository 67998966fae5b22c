/** Human durations for a dense UI: 42 s, 2 min 5 s, 1 h 12 min, 3 d 4 h. */
export function formatDuration(ms: number): string {
  const s = Math.max(0, Math.round(ms / 1000));
  if (s < 60) return `${s} s`;
  const m = Math.floor(s / 60);
  if (m < 60) return s % 60 ? `${m} min ${s % 60} s` : `${m} min`;
  const h = Math.floor(m / 60);
  if (h < 24) return m % 60 ? `${h} h ${m % 60} min` : `${h} h`;
  const d = Math.floor(h / 24);
  return h % 24 ? `${d} d ${h % 24} h` : `${d} d`;
}

/** "in 1 min 5 s" / "due now" for a moment relative to now. */
export function formatCountdown(targetMs: number, nowMs: number): string {
  const left = targetMs - nowMs;
  return left <= 500 ? 'due now' : `in ${formatDuration(left)}`;
}

/** "3 min ago" / "in 2 min" for an age in seconds (negative = future). */
export function formatAge(ageSeconds: number): string {
  if (Math.abs(ageSeconds) < 1) return 'just now';
  return ageSeconds > 0
    ? `${formatDuration(ageSeconds * 1000)} ago`
    : `${formatDuration(-ageSeconds * 1000)} in the future`;
}

const timeFormat = new Intl.DateTimeFormat(undefined, {
  hour: '2-digit',
  minute: '2-digit',
  second: '2-digit',
  hour12: false,
});
const dateTimeFormat = new Intl.DateTimeFormat(undefined, {
  year: 'numeric',
  month: 'short',
  day: '2-digit',
  hour: '2-digit',
  minute: '2-digit',
  second: '2-digit',
  hour12: false,
});

/** 14:03:09 in the user's locale (24-hour). */
export const formatTime = (iso: string | number) => timeFormat.format(new Date(iso));
/** Nov 22, 2026, 14:03:09 in the user's locale. */
export const formatDateTime = (iso: string | number) => dateTimeFormat.format(new Date(iso));

/** Where a signature's timestamp stands against the tolerance, in words ("within the 5-minute tolerance"). */
export const toleranceText = (standing: string, seconds: number) =>
  standing === 'within_tolerance'
    ? `within the ${seconds / 60}-minute tolerance`
    : standing === 'stale'
      ? `older than the ${seconds / 60}-minute tolerance`
      : 'ahead of the tolerance';

/** A short text for an attempt's outcome: the status, or the error. */
export function outcomeText(status: number | null, error: string | null): string {
  if (status !== null && !error) return String(status);
  if (status !== null && error) return `${status} · ${error}`;
  return error ?? '—';
}

/** "100 products · 3 approval requests" from a counts object (camelCase keys become words). */
export const countsText = (counts: Record<string, number>) =>
  Object.entries(counts)
    .map(([k, v]) => `${v} ${k.replace(/[A-Z]/g, (c) => ` ${c.toLowerCase()}`)}`)
    .join(' · ');

/** "1 delivery", "2 deliveries": a count with its noun agreeing. */
export const counted = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;

// The few words of each error the sender records, for places with room for a word or two (the retry timeline).
const shortErrors: [RegExp, string][] = [
  [/^connection refused/, 'refused'],
  [/^connection reset/, 'reset'],
  [/^host not found/, 'no such host'],
  [/^host unreachable/, 'unreachable'],
  [/^timeout/, 'timeout'],
  [/^TLS certificate/, 'TLS rejected'],
];

/**
 * An attempt's outcome in a word or two: the status, or the error cut to its gist (the full text goes in a tooltip).
 */
export function shortOutcomeText(status: number | null, error: string | null): string {
  if (status !== null) return String(status);
  if (!error) return '—';
  const known = shortErrors.find(([pattern]) => pattern.test(error));
  if (known) return known[1];
  const gist = error.split(/[:;(]/)[0].trim();
  return gist.length > 20 ? `${gist.slice(0, 19)}…` : gist || error.slice(0, 19);
}
