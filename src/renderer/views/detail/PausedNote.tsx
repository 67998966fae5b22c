import type { Delivery } from '../../../shared/api-types.ts';
import { useAction } from '../../components/hooks.ts';
import { InlineError } from '../../components/Misc.tsx';
import { useDetail } from '../../store/detail.ts';
import { useEndpoints } from '../../store/endpoints.ts';
import { useCan } from '../../store/signin.ts';
import { ClockTime } from '../../components/ClockTime.tsx';

/**
 * Why a pending delivery is not attempted (its endpoint is off, after a 410 Gone or by hand), with the one click that
 * resumes it.
 */
export function PausedNote({ delivery }: { delivery: Delivery }) {
  const canWrite = useCan('webhooks:write');
  const enable = useAction(async () => {
    await useEndpoints.getState().update(delivery.endpointId!, { enabled: true });
    await useDetail.getState().refresh();
  });
  if (!delivery.paused) return null;
  return (
    <div className="callout warn row" role="status" data-testid="delivery-paused">
      <span>
        {delivery.paused.message}{' '}
        <span className="faint">
          Since <ClockTime at={delivery.paused.since} clock="sandbox" withDate /> (sandbox clock).
        </span>
      </span>
      {canWrite && delivery.endpointId && (
        <button type="button" className="small" disabled={enable.busy} onClick={() => void enable.run()}>
          Enable endpoint
        </button>
      )}
      <InlineError error={enable.error} />
    </div>
  );
}
