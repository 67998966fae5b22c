import { maxAttempts, retryDelaysSeconds } from '../../../shared/retry-schedule.ts';
import { maxRetryAfterSeconds } from '../../../shared/retry-after.ts';
import type { Attempt, Delivery } from '../../../shared/api-types.ts';
import { useNow } from '../../components/hooks.ts';
import { useApp } from '../../store/app.ts';
import { formatCountdown, formatDuration, outcomeText, shortOutcomeText } from '../../util/format.ts';
import { ClockTime } from '../../components/ClockTime.tsx';

type SlotState = 'succeeded' | 'failed' | 'scheduled' | 'unused' | 'waiting';

// Each slot says its delay; the slots share the width equally, so an outcome ("connection refused",
// a Retry-After note) wraps inside its own column and never runs into the next one.
const delayLabels = [
  'at once',
  ...retryDelaysSeconds.map((s) => `+${formatDuration(s * 1000).replace(/ /g, '\u00a0')}`),
];

const ok = (a: Attempt) => a.responseStatus !== null && a.responseStatus >= 200 && a.responseStatus < 300 && !a.error;

interface Slot {
  number: number;
  state: SlotState;
  attempt?: Attempt;
}

function slotsOf(delivery: Delivery): Slot[] {
  const cycle = delivery.attempts.filter((a) => a.trigger !== 'replay');
  return Array.from({ length: maxAttempts }, (_, i) => {
    const attempt = cycle[i];
    if (attempt) return { number: i + 1, state: ok(attempt) ? 'succeeded' : 'failed', attempt };
    // A paused delivery (its endpoint off) is not due, whatever its schedule says: it waits to be enabled.
    if (delivery.status === 'pending' && i === cycle.length)
      return { number: i + 1, state: delivery.nextAttemptAt && !delivery.paused ? 'scheduled' : 'waiting' };
    return { number: i + 1, state: 'unused' };
  });
}

/** Why the attempt after this one is when it is, when the receiver's answer changed it (SPEC §5.3). */
function scheduleNote(a: Attempt): string | null {
  if (a.disabledEndpoint) return '410 Gone: endpoint disabled';
  const r = a.retryAfter;
  if (!r) return null;
  const asked = `Retry-After ${/^\d+$/.test(r.value) ? `${r.value} s` : r.value}`;
  if (!r.applied) return `${asked} (the schedule was later)`;
  return `${asked} → next attempt ${formatDuration((r.capped ? maxRetryAfterSeconds : r.delaySeconds) * 1000)} later${r.capped ? ' (capped at 1 h)' : ''}`;
}

const stateText: Record<SlotState, string> = {
  succeeded: 'succeeded',
  failed: 'failed',
  scheduled: 'scheduled',
  unused: 'not needed',
  waiting: 'waiting (endpoint disabled?)',
};

/**
 * The five attempts of the retry cycle in order (0, then 30 s, 2 min, 10 min and 1 h after each
 * failure), what each returned and when, the next one's countdown, and the dead-letter point.
 */
export function RetryTimeline({ delivery }: { delivery: Delivery }) {
  const now = useNow();
  const offset = useApp((s) => s.clockOffsetMs);
  const slots = slotsOf(delivery);
  const replays = delivery.attempts.filter((a) => a.trigger === 'replay');
  const dead = delivery.status === 'dead';
  const notes = slots.flatMap((slot) => {
    const note = slot.attempt && scheduleNote(slot.attempt);
    return note ? [{ number: slot.number, note }] : [];
  });
  return (
    <section className="timeline" aria-labelledby="timeline-title">
      <h3 id="timeline-title">
        Retry timeline <span className="faint">(sandbox clock)</span>
      </h3>
      <ol className="timeline-track" aria-label="Attempts of the retry cycle">
        {slots.map((slot, i) => (
          <li
            key={slot.number}
            className={`slot ${slot.state}`}
            data-testid={`slot-${slot.number}`}
            data-state={slot.state}
          >
            <span className="slot-dot" aria-hidden="true">
              {slot.state === 'succeeded' ? '✓' : slot.state === 'failed' ? '✕' : slot.number}
            </span>
            <span className="slot-label">
              <strong>#{slot.number}</strong> <span className="faint">{delayLabels[i]}</span>
              <span className="visually-hidden">: {stateText[slot.state]}</span>
            </span>
            <span className="slot-outcome">
              {slot.attempt && (
                <>
                  <span className="slot-result" title={outcomeText(slot.attempt.responseStatus, slot.attempt.error)}>
                    {shortOutcomeText(slot.attempt.responseStatus, slot.attempt.error)}
                  </span>{' '}
                  <span className="slot-time">
                    <ClockTime at={slot.attempt.startedAt} clock="sandbox" />
                  </span>
                </>
              )}
              {slot.state === 'scheduled' && delivery.nextAttemptAt && (
                <span data-testid="next-attempt">
                  {formatCountdown(Date.parse(delivery.nextAttemptAt), now + offset)}
                </span>
              )}
              {slot.state === 'waiting' && (delivery.paused ? 'waiting: endpoint disabled' : 'waiting')}
            </span>
          </li>
        ))}
        <li
          className={`slot dlq${dead ? ' reached' : ''}`}
          data-testid="slot-dlq"
          data-state={dead ? 'reached' : 'not-reached'}
        >
          <span className="slot-dot" aria-hidden="true">
            ☠
          </span>
          <span className="slot-label">
            <strong>DLQ</strong>
            <span className="visually-hidden">: {dead ? 'reached' : 'not reached'}</span>
          </span>
          <span className="slot-outcome">
            {dead ? (delivery.lastError === 'endpoint_deleted' ? 'endpoint deleted' : 'dead') : ''}
          </span>
        </li>
      </ol>
      {notes.length > 0 && (
        // Below the track, one line per answer: a note is longer than its slot's column is wide.
        <ul className="schedule-notes" aria-label="What the receiver's answers did to the schedule">
          {notes.map(({ number, note }) => (
            <li key={number}>
              <span className="faint">After #{number}:</span>{' '}
              <span className="schedule-note" data-testid="schedule-note">
                {note}
              </span>
            </li>
          ))}
        </ul>
      )}
      {replays.length > 0 && (
        <p className="replays">
          <span className="label">Replays:</span>{' '}
          {replays.map((r) => (
            <span key={r.number} className={`tag ${ok(r) ? 'ok' : 'bad'}`}>
              #{r.number} {outcomeText(r.responseStatus, r.error)} · <ClockTime at={r.startedAt} clock="sandbox" />
            </span>
          ))}
        </p>
      )}
    </section>
  );
}
