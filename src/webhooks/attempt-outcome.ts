import type { DueJob } from '../schedule/scheduler.ts';
import { nextStep } from './answer-policy.ts';
import type { AttemptSigning, SignedAttempt } from './attempt-signing.ts';
import type { AttemptRecord } from './attempt-recorder.ts';
import { attemptChaos, type ChaosDraw } from './chaos.ts';
import type { DeliveryState } from './delivery-state.ts';
import type { DispatcherDeps } from './dispatcher.ts';
import type { Flight } from './flights.ts';
import type { LeasedDelivery } from './leases.ts';
import type { SendOutcome } from './sender.ts';

export const attemptJob = 'webhook.attempt';

export type Trigger = AttemptRecord['attempt']['trigger'];

export interface AttemptResult {
  status: 'pending' | 'succeeded' | 'dead';
  /** in_flight: another attempt holds (or just took) the delivery's lease; lost_lease: ours expired mid-attempt. */
  /** quarantined: its stored state cannot be processed; it is dead with the reason (./quarantine.ts). */
  skipped?: 'endpoint_disabled' | 'endpoint_deleted' | 'stale' | 'in_flight' | 'lost_lease' | 'quarantined';
}

/** The scheduler's job for a delivery's next attempt, due at `dueAt` (sandbox time). */
export const attemptJobOf = (state: DeliveryState, dueAt: number): DueJob<DeliveryState> => ({
  kind: attemptJob,
  tenantId: state.tenantId,
  id: state.id,
  dueAt,
  data: state,
});

type OutcomeDeps = Pick<
  DispatcherDeps,
  'endpoints' | 'recorder' | 'scheduler' | 'stream' | 'leases' | 'realNow' | 'onError'
>;

/** An attempt that was sent, under its lease, in the sandbox's flight of epoch `epoch`. */
interface FinishedAttempt {
  leased: LeasedDelivery;
  trigger: Trigger;
  asOf: number;
  flight: Flight;
  epoch: number;
  sent: { url: string; schemes: AttemptSigning['schemes']; signed: SignedAttempt };
  outcome: SendOutcome;
  chaos: ChaosDraw | null;
}

/**
 * Records a sent attempt under its lease (batched: ./attempt-recorder.ts) with what follows from the answer — the next
 * slot scheduled, the delivery dead-lettered, a 410's endpoint turned off — then tells the live stream. A result whose
 * lease was lost (or whose sandbox was reset meanwhile) is dropped: the attempt that took its place stands.
 */
export async function recordOutcome(
  deps: OutcomeDeps,
  { leased, trigger, asOf, flight, epoch, sent, outcome, chaos }: FinishedAttempt,
): Promise<AttemptResult> {
  const { tenantId, id } = leased;
  const cycle = trigger !== 'replay' && trigger !== 'duplicate';
  const cycleAttempts = leased.cycleAttempts + (cycle ? 1 : 0);
  const finishedAt = asOf + outcome.durationMs;
  // The retry schedule, then what the answer asks (SPEC §5.3): Retry-After, or 410 Gone.
  const { status, nextAttemptAt, retryAfter, disableEndpoint } = nextStep({
    outcome,
    inCycle: cycle,
    duplicate: trigger === 'duplicate',
    cycleAttempts,
    finishedAt,
    realNowMs: deps.realNow(),
    hasEndpoint: leased.endpointId !== null,
  });
  const next: DeliveryState = { ...leased, attemptCount: leased.slot, cycleAttempts };
  // Off first, so that no engine starts another attempt to a receiver that said it is gone.
  if (disableEndpoint && flight.epoch === epoch)
    await deps.endpoints.disableGone(tenantId, leased.endpointId!, id, new Date(finishedAt));
  const record: AttemptRecord = {
    tenantId,
    deliveryId: id,
    lease: { owner: deps.leases.owner, slot: leased.slot },
    attempt: {
      number: leased.slot,
      trigger,
      url: sent.url,
      startedAt: new Date(asOf),
      durationMs: outcome.durationMs,
      signatureHeader: sent.signed.signatureHeader,
      responseStatus: outcome.status,
      responseHeaders: outcome.headers,
      responseBody: outcome.body,
      error: outcome.error,
      chaos: attemptChaos(chaos, trigger === 'duplicate'),
      signature: sent.schemes,
      signatureHeaders: sent.signed.signatureHeaders,
      retryAfter,
      disabledEndpoint: disableEndpoint,
    },
    delivery: {
      status,
      attemptCount: leased.slot,
      cycleAttempts,
      nextAttemptAt: nextAttemptAt === null ? null : new Date(nextAttemptAt),
      updatedAt: new Date(finishedAt),
    },
  };
  if (flight.epoch !== epoch) return { status, skipped: 'stale' };
  if (!(await deps.recorder.record(record))) {
    // The lease ran out and another engine took the slot (or a reset removed the delivery): its attempt stands.
    if (flight.epoch === epoch)
      deps.onError(`delivery ${id}: attempt ${leased.slot} finished after its lease was lost; its result was dropped`);
    return { status, skipped: 'lost_lease' };
  }
  if (flight.epoch !== epoch) return { status, skipped: 'stale' };
  if (nextAttemptAt !== null) deps.scheduler.schedule(attemptJobOf(next, nextAttemptAt));
  deps.stream.publish(tenantId, 'attempt.finished', {
    id,
    number: leased.slot,
    trigger,
    responseStatus: outcome.status,
    error: outcome.error,
    durationMs: outcome.durationMs,
  });
  deps.stream.publish(tenantId, 'delivery.updated', {
    id,
    status,
    attemptCount: leased.slot,
    nextAttemptAt: nextAttemptAt === null ? null : new Date(nextAttemptAt).toISOString(),
    ...(disableEndpoint ? { endpointId: leased.endpointId, endpointDisabled: true } : {}),
  });
  return { status };
}
