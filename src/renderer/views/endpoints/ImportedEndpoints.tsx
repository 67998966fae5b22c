import { useState } from 'react';
import type { EnabledEndpoints, Endpoint } from '../../../shared/api-types.ts';
import { useAction } from '../../components/hooks.ts';
import { InlineError } from '../../components/Misc.tsx';
import { useEndpoints } from '../../store/endpoints.ts';
import { useCan } from '../../store/signin.ts';

/**
 * The endpoints an import paused (SPEC §12: an imported sandbox calls nothing until its user says so): the
 * receiver URLs the file names, and one button that resumes them all. What the outbound policy refuses stays
 * paused, with its reason beside its URL.
 */
export function ImportedEndpoints({ endpoints }: { endpoints: Endpoint[] }) {
  const canWrite = useCan('webhooks:write');
  const [refused, setRefused] = useState<EnabledEndpoints['refused']>([]);
  const resume = useAction(async () => setRefused((await useEndpoints.getState().resumeImported()).refused));
  const paused = endpoints.filter((e) => e.disabled?.reason === 'imported');
  if (paused.length === 0) return null;
  const why = (id: string) => refused.find((r) => r.endpointId === id)?.message;
  return (
    <section className="callout warn stack tight" aria-label="Paused by the import" data-testid="imported-endpoints">
      <p>
        <strong>
          {paused.length === 1 ? 'One endpoint' : `${paused.length} endpoints`} arrived paused with this imported
          sandbox.
        </strong>{' '}
        Nothing is sent to these receivers, and their pending deliveries wait, until you resume them:
      </p>
      <ul>
        {paused.map((e) => (
          <li key={e.id}>
            <code>{e.url}</code>
            {why(e.id) && <span className="field-error"> {why(e.id)}</span>}
          </li>
        ))}
      </ul>
      {canWrite && (
        <div className="row">
          <button type="button" className="primary small" disabled={resume.busy} onClick={() => void resume.run()}>
            Resume all
          </button>
        </div>
      )}
      <InlineError error={resume.error} />
    </section>
  );
}
