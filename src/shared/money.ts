/** Money travels as JSON numbers with at most 2 decimals and is computed in integer minor units. */

export function toMajor(minor: number): number {
  const sign = minor < 0 ? '-' : '';
  const abs = Math.abs(minor);
  return Number(`${sign}${Math.trunc(abs / 100)}.${String(abs % 100).padStart(2, '0')}`);
}

/** Exact conversion of a decimal amount to minor units, or null when it has more than 2 decimals. */
export function toMinor(amount: number): number | null {
  if (!Number.isFinite(amount)) return null;
  const match = /^(-?)(\d+)(?:\.(\d{1,2}))?$/.exec(String(amount));
  if (!match) return null;
  const [, sign, whole, fraction = ''] = match;
  const minor = Number(whole) * 100 + Number(fraction.padEnd(2, '0'));
  return sign ? -minor : minor;
}
