import { useState } from 'react';
import { utf8Length } from '../../../shared/hmac.ts';
import { signatureHeaderName } from '../../../shared/signature.ts';
import type { Delivery } from '../../../shared/api-types.ts';
import { CopyButton } from '../../components/Copy.tsx';
import { JsonView } from '../../components/JsonView.tsx';

/** The request as sent: method, URL, production headers and the body, pretty or byte for byte. */
export function RequestTab({ delivery }: { delivery: Delivery }) {
  const [raw, setRaw] = useState(false);
  const last = delivery.attempts.at(-1);
  const headers: [string, string][] = [
    ['Content-Type', 'application/json'],
    ['User-Agent', 'Sandbay-Webhooks/1.0'],
    ['X-Service-Topic', delivery.topic],
    ['X-Service-Delivery-Id', delivery.id],
    [signatureHeaderName, last?.signatureHeader ?? '(signed when the first attempt is sent)'],
  ];
  return (
    <div className="stack">
      <div className="mono request-line">
        <strong>POST</strong> {last?.url ?? delivery.url ?? '—'}
      </div>
      <table className="data headers">
        <tbody>
          {headers.map(([k, v]) => (
            <tr key={k}>
              <th scope="row" className="mono">
                {k}
              </th>
              <td className="mono wrap">{v}</td>
            </tr>
          ))}
        </tbody>
      </table>
      <p className="faint">
        The signature header is signed afresh for every attempt; it shows the latest one (each attempt&apos;s is under
        Signature).
      </p>
      <div className="row">
        <h3>Body</h3>
        <span className="faint">{utf8Length(delivery.rawBody)} bytes, identical on every attempt</span>
        <span className="spacer" />
        <div className="segmented" role="group" aria-label="Body view">
          <button type="button" aria-pressed={!raw} onClick={() => setRaw(false)}>
            Pretty
          </button>
          <button type="button" aria-pressed={raw} onClick={() => setRaw(true)}>
            Raw
          </button>
        </div>
        <CopyButton value={delivery.rawBody} label="raw body" />
      </div>
      {raw ? (
        <pre className="code" data-testid="raw-body" tabIndex={0} aria-label="Raw body">
          {delivery.rawBody}
        </pre>
      ) : (
        <JsonView text={delivery.rawBody} label="Body, pretty-printed" />
      )}
    </div>
  );
}
