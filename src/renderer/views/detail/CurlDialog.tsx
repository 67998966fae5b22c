import { useState } from 'react';
import { resignedCurl } from '../../../shared/curl.ts';
import type { Delivery } from '../../../shared/api-types.ts';
import { CopyButton } from '../../components/Copy.tsx';
import { Modal } from '../../components/Dialog.tsx';
import { ApiProblem } from '../../api/client.ts';
import { secretValues, useSigningSecrets } from './secrets.ts';

/** "Copy as curl": the exact body and headers, re-signed now so a receiver's tolerance check passes. */
export function CurlButton({ delivery }: { delivery: Delivery }) {
  const secrets = useSigningSecrets(delivery);
  const [command, setCommand] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const url = delivery.url ?? delivery.attempts.at(-1)?.url ?? '';
  const build = async () => {
    setError(null);
    const values = secretValues(secrets);
    if (values.length === 0) {
      setError(secrets instanceof ApiProblem ? `Cannot read the signing secrets: ${secrets.message}` : 'The signing secrets are still loading; try again in a moment.');
      setCommand('');
      return;
    }
    try {
      setCommand(await resignedCurl({
        url, topic: delivery.topic, deliveryId: delivery.id, rawBody: delivery.rawBody, secrets: values, now: Math.floor(Date.now() / 1000),
      }));
    } catch (err) {
      setError((err as Error).message);
      setCommand('');
    }
  };
  return (
    <>
      <button type="button" onClick={() => void build()}>Copy as curl</button>
      <Modal
        open={command !== null}
        onClose={() => setCommand(null)}
        title="Copy as curl"
        actions={
          <>
            {command && <CopyButton value={command} label="curl command" text="Copy command" />}
            <button type="button" onClick={() => setCommand(null)}>Close</button>
          </>
        }
      >
        {error ? <div className="field-error" role="alert">{error}</div> : (
          <>
            <p className="muted">Signed just now with the endpoint&apos;s live secrets (t={command ? /t=(\d+)/.exec(command)?.[1] : ''}); receivers accept it for 5 minutes. Run it again later and it will be too old — copy a fresh one.</p>
            <pre className="code" data-testid="curl-command" tabIndex={0}>{command}</pre>
          </>
        )}
      </Modal>
    </>
  );
}
