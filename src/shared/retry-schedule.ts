/** SPEC §5.3: attempt 1 is immediate; attempts 2–5 follow these delays after the previous failure. */
export const retryDelaysSeconds = [30, 120, 600, 3600] as const;
export const maxAttempts = retryDelaysSeconds.length + 1;
export const attemptTimeoutSeconds = 10;

/** Delay before the next attempt once `failedAttempts` of the cycle have failed, or null when the delivery is dead. */
export function nextRetryDelaySeconds(failedAttempts: number): number | null {
  return failedAttempts >= 1 && failedAttempts < maxAttempts ? retryDelaysSeconds[failedAttempts - 1] : null;
}
