/** A failed payout is retried 1 h, 6 h and 24 h after each failure (sandbox clock), then given up. */
export const payoutRetryDelaysMs = [3600_000, 6 * 3600_000, 24 * 3600_000];

/** The first attempt plus one per retry. */
export const maxPayoutAttempts = payoutRetryDelaysMs.length + 1;
