import { formatDateTime, formatTime } from '../util/format.ts';

/**
 * The two clocks a timestamp can be on (SPEC §5.5): the sandbox's runs ahead of the real one after an
 * advance (retries, occurredAt, expiries, rotation overlaps), the real one does not (signature times,
 * token lifetimes, what the browser and the catchers saw). Hours apart on one screen, so each says which.
 */
type Clock = 'sandbox' | 'real';

export const clockName: Record<Clock, string> = { sandbox: 'sandbox clock', real: 'real clock' };

/** A timestamp that names its clock: on hover (title), and to tests and scripts (data-clock). */
export function ClockTime({
  at,
  clock,
  withDate = false,
  testId,
}: {
  at: string | number;
  clock: Clock;
  /** The date too (Nov 22, 2026, 14:03:09), where there is room; else the time alone. */
  withDate?: boolean;
  testId?: string;
}) {
  return (
    <time
      dateTime={new Date(at).toISOString()}
      data-clock={clock}
      data-testid={testId}
      title={`${formatDateTime(at)}, ${clockName[clock]}`}
    >
      {withDate ? formatDateTime(at) : formatTime(at)}
    </time>
  );
}
