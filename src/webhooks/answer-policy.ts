import type { AttemptRetryAfter } from '../shared/api-types.ts';
import { nextRetryDelaySeconds } from '../shared/retry-schedule.ts';
import { goneStatus, maxRetryAfterSeconds, retryAfterSeconds, retryAfterStatuses } from '../shared/retry-after.ts';
import type { SendOutcome } from './sender.ts';

export interface NextStep {
  status: 'pending' | 'succeeded' | 'dead';
  /** Sandbox ms of the next attempt; null when there is none. */
  nextAttemptAt: number | null;
  retryAfter: AttemptRetryAfter | null;
  /** 410 Gone from an endpoint's receiver: turn the endpoint off. */
  disableEndpoint: boolean;
}

/**
 * Where a delivery goes after an attempt (SPEC §5.3): success, the next slot of the retry schedule,
 * or dead; then what the receiver's answer changes. A Retry-After moves the next attempt to the later
 * of the schedule and itself (at most an hour), on the sandbox clock; a 410 Gone disables the
 * endpoint, whose deliveries then wait like any disabled endpoint's (a test sent to a bare URL has
 * no endpoint, so its delivery ends).
 */
export function nextStep(input: {
  outcome: Pick<SendOutcome, 'ok' | 'status' | 'headers'>;
  /** The attempt was one of the retry cycle's five (not a replay or a chaos duplicate). */
  inCycle: boolean;
  duplicate: boolean;
  cycleAttempts: number;
  /** Sandbox ms the attempt finished. */
  finishedAt: number;
  realNowMs: number;
  hasEndpoint: boolean;
}): NextStep {
  const { outcome } = input;
  const delay = input.inCycle ? nextRetryDelaySeconds(input.cycleAttempts) : null;
  const gone = outcome.status === goneStatus && !input.duplicate;
  let status: NextStep['status'] = outcome.ok || input.duplicate ? 'succeeded' : delay === null ? 'dead' : 'pending';
  if (gone && !input.hasEndpoint && status === 'pending') status = 'dead';
  let nextAttemptAt = status === 'pending' ? input.finishedAt + delay! * 1000 : null;
  let retryAfter: AttemptRetryAfter | null = null;
  const header = outcome.headers['retry-after'];
  const asked =
    header !== undefined && outcome.status !== null && retryAfterStatuses.has(outcome.status)
      ? retryAfterSeconds(header, input.realNowMs)
      : undefined;
  if (asked !== undefined && !outcome.ok) {
    const delaySeconds = Math.min(asked, maxRetryAfterSeconds);
    const wanted = input.finishedAt + delaySeconds * 1000;
    const applied = nextAttemptAt !== null && wanted > nextAttemptAt;
    if (applied) nextAttemptAt = wanted;
    retryAfter = { value: header!, delaySeconds: asked, capped: asked > maxRetryAfterSeconds, applied };
  }
  return { status, nextAttemptAt, retryAfter, disableEndpoint: gone && input.hasEndpoint };
}
