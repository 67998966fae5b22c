import { api, ApiProblem } from '../../api/client.ts';
import type { Delivery } from '../../../shared/api-types.ts';
import { useAction } from '../../components/hooks.ts';
import { InlineError } from '../../components/Misc.tsx';
import { sandboxNow, useApp } from '../../store/app.ts';
import { useDetail } from '../../store/detail.ts';
import { useCan } from '../../store/signin.ts';
import { counted, formatDuration } from '../../util/format.ts';
import { CurlButton } from './CurlDialog.tsx';
import { ResendButton } from './ResendDialog.tsx';

const attemptNow = (id: string, verb: 'retry' | 'replay') =>
  api.post<Delivery>(`/api/v1/webhooks/deliveries/${id}/${verb}`);

/** Retry now, fast-forward the sandbox clock to the next attempt, replay, copy as curl. */
export function DeliveryActions({ delivery }: { delivery: Delivery }) {
  const toast = useApp((s) => s.toast);
  const done = (d: Delivery, what: string) => {
    useDetail.setState({ delivery: d });
    toast(d.status === 'succeeded' ? 'success' : 'info', `${what}: ${d.status}.`, undefined, 'attempt');
  };
  const retry = useAction(async () => done(await attemptNow(delivery.id, 'retry'), 'Retried now'));
  const replay = useAction(async () => done(await attemptNow(delivery.id, 'replay'), 'Replayed'));
  const fastForward = useAction(async () => {
    const due = Date.parse(delivery.nextAttemptAt!);
    const seconds = Math.max(1, Math.ceil((due - sandboxNow()) / 1000));
    const clock = await useApp.getState().advanceClock(seconds);
    await useDetail.getState().refresh();
    toast(
      'info',
      `Sandbox clock advanced ${formatDuration(seconds * 1000)}; ${counted(clock.jobsRun, 'due job')} ran.`,
      undefined,
      'clock',
    );
  });
  // A shared server's session may hold a narrower token: show only what it can do.
  const canAttempt = useCan('webhooks:write');
  const canAdvance = useCan('sandbox:write');
  const pending = delivery.status === 'pending';
  // A paused delivery (its endpoint off) is neither attempted nor due: the note above it offers Enable instead.
  const waiting = pending && !delivery.paused;
  const error = retry.error ?? replay.error ?? fastForward.error;
  return (
    <div className="actions">
      <div className="row">
        {waiting && canAttempt && (
          <button type="button" onClick={() => void retry.run()} disabled={retry.busy}>
            {retry.busy ? 'Attempting…' : 'Retry now'}
          </button>
        )}
        {waiting && canAdvance && delivery.nextAttemptAt && (
          <button type="button" className="primary" onClick={() => void fastForward.run()} disabled={fastForward.busy}>
            {fastForward.busy ? 'Advancing…' : 'Fast-forward to next attempt'}
          </button>
        )}
        {!pending && canAttempt && (
          <button
            type="button"
            className={delivery.status === 'dead' ? 'primary' : undefined}
            onClick={() => void replay.run()}
            disabled={replay.busy}
          >
            {replay.busy ? 'Replaying…' : 'Replay'}
          </button>
        )}
        {canAttempt && !delivery.check && <ResendButton delivery={delivery} />}
        <CurlButton delivery={delivery} />
      </div>
      <InlineError error={error} />
      {error instanceof ApiProblem && error.code === 'endpoint_disabled' && (
        <p className="field-hint">Enable the endpoint in Endpoints first.</p>
      )}
    </div>
  );
}
