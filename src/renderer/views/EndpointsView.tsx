import { useEffect, useState } from 'react';
import type { Endpoint } from '../../shared/api-types.ts';
import { EmptyState } from '../components/Misc.tsx';
import { Secret } from '../components/Secret.tsx';
import { useEndpoints } from '../store/endpoints.ts';
import { useCan } from '../store/signin.ts';
import { Catchers } from './endpoints/Catchers.tsx';
import { EndpointCard } from './endpoints/EndpointCard.tsx';
import { EndpointForm } from './endpoints/EndpointForm.tsx';
import { ImportedEndpoints } from './endpoints/ImportedEndpoints.tsx';
import { TestWebhookForm } from './endpoints/TestWebhook.tsx';

/** Webhooks → Endpoints: register, test, enable, rotate and delete endpoints; and the built-in catchers. */
export function EndpointsView({ sandboxId }: { sandboxId: string }) {
  const { endpoints, loaded, error } = useEndpoints();
  const canWrite = useCan('webhooks:write');
  const [adding, setAdding] = useState(false);
  const [created, setCreated] = useState<Endpoint | null>(null);
  useEffect(() => {
    // Cannot reject: load() catches: the error shows in the store.
    if (!useEndpoints.getState().loaded) void useEndpoints.getState().load();
  }, [sandboxId]);
  return (
    <div className="page stack">
      <div className="pane-head">
        <h1>Endpoints</h1>
        <span className="muted">{endpoints.length} registered</span>
        <span className="spacer" />
        {!adding && canWrite && (
          <button
            type="button"
            className="primary"
            onClick={() => {
              setAdding(true);
              setCreated(null);
            }}
          >
            Add endpoint
          </button>
        )}
      </div>
      {adding && (
        <EndpointForm
          onCancel={() => setAdding(false)}
          onCreated={(e) => {
            setAdding(false);
            setCreated(e);
          }}
        />
      )}
      {created && (
        <div className="callout ok" role="status">
          <strong>Endpoint created.</strong> Its signing secret (reveal it whenever you need it, here or on the
          endpoint):
          <Secret value={created.secret} label="new signing secret" />
        </div>
      )}
      <ImportedEndpoints endpoints={endpoints} />
      {error && (
        <div className="callout bad" role="alert">
          {error}
        </div>
      )}
      {loaded && endpoints.length === 0 && !adding && (
        <EmptyState
          title="No endpoints yet"
          action={
            canWrite && (
              <button type="button" className="primary" onClick={() => setAdding(true)}>
                Add endpoint
              </button>
            )
          }
        >
          An endpoint is a URL that receives signed webhooks for the topics you pick. No receiver at hand? Create a
          built-in catcher below and register it.
        </EmptyState>
      )}
      {endpoints.length > 0 && (
        <ul className="cards">
          {endpoints.map((e) => (
            <EndpointCard key={e.id} endpoint={e} sandboxId={sandboxId} />
          ))}
        </ul>
      )}
      {canWrite && <TestWebhookForm sandboxId={sandboxId} />}
      <Catchers sandboxId={sandboxId} />
    </div>
  );
}
