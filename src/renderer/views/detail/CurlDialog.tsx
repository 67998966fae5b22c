import { useState } from 'react';
import { curlCommand } from '../../../shared/curl.ts';
import type { Delivery, SignedRequest } from '../../../shared/api-types.ts';
import { api } from '../../api/client.ts';
import { CopyButton } from '../../components/Copy.tsx';
import { Modal } from '../../components/Dialog.tsx';

/**
 * "Copy as curl": the exact body and headers, signed afresh by the engine (every scheme the delivery
 * uses, ed25519 included, whose private key never leaves it) so a receiver's tolerance check passes.
 */
export function CurlButton({ delivery }: { delivery: Delivery }) {
  const [signed, setSigned] = useState<SignedRequest | null>(null);
  const [command, setCommand] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const build = async () => {
    setError(null);
    try {
      const request = await api.get<SignedRequest>(
        `/api/v1/webhooks/deliveries/${encodeURIComponent(delivery.id)}/signed-request`,
      );
      setSigned(request);
      setCommand(curlCommand(request.url, request.headers, request.body));
    } catch (err) {
      setError(`Cannot sign the request: ${(err as Error).message}`);
      setCommand('');
    }
  };
  return (
    <>
      <button type="button" onClick={() => void build()}>
        Copy as curl
      </button>
      <Modal
        open={command !== null}
        onClose={() => setCommand(null)}
        title="Copy as curl"
        actions={
          <>
            {command && <CopyButton value={command} label="curl command" text="Copy command" />}
            <button type="button" onClick={() => setCommand(null)}>
              Close
            </button>
          </>
        }
      >
        {error ? (
          <div className="field-error" role="alert">
            {error}
          </div>
        ) : (
          <>
            <p className="muted">
              Signed just now ({signed?.signature.join(' + ')}, t={signed?.signedAt}) with the endpoint&apos;s live
              keys; receivers accept it for 5 minutes. Run it again later and it will be too old — copy a fresh one.
            </p>
            <pre className="code" data-testid="curl-command" tabIndex={0}>
              {command}
            </pre>
          </>
        )}
      </Modal>
    </>
  );
}
