import type { Delivery } from '../../../shared/api-types.ts';
import { Copyable } from '../../components/Copy.tsx';
import { Link } from '../../components/Misc.tsx';
import { pathOf } from '../../router.ts';

/**
 * A resend's links both ways (issue 31): "Edited from" / "Resent from" the original and its trace (the resend's
 * first span links there), "Resent as" each resend.
 */
export function ResendLinks({ delivery, sandboxId }: { delivery: Delivery; sandboxId: string }) {
  const to = (id: string) => (
    <Link key={id} to={pathOf('deliveries', sandboxId, id)} className="mono">
      {id}
    </Link>
  );
  return (
    <>
      {delivery.resentFrom && (
        <>
          <dt>{delivery.resentFrom.edited ? 'Edited from' : 'Resent from'}</dt>
          <dd data-testid="resent-from">{to(delivery.resentFrom.id)}</dd>
          <dt title="This delivery's first attempt span carries an OpenTelemetry link to that delivery's last attempt: follow it in your tracing tool">
            Linked trace
          </dt>
          <dd data-testid="resent-from-trace">
            <Copyable value={delivery.resentFrom.traceId} label="trace id of the delivery it was resent from" />
          </dd>
        </>
      )}
      {delivery.resentAs.length > 0 && (
        <>
          <dt>Resent as</dt>
          <dd data-testid="resent-as" className="row">
            {delivery.resentAs.map(to)}
          </dd>
        </>
      )}
    </>
  );
}
