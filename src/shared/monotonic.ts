/**
 * Milliseconds on a clock that only moves forward (performance.now()): for measuring intervals. The wall
 * clock (Date.now()) can be stepped back or forward by NTP or a person, and an interval measured on it
 * then lies — a lease would seem to have more time left than the database gives it (docs/team-mode.md, Faults).
 * Its values mean nothing across processes: compare them only with each other.
 */
export const monotonicNow = (): number => performance.now();
