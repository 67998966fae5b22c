import { useState } from 'react';
import type { Delivery } from '../../../shared/api-types.ts';
import { EmptyState } from '../../components/Misc.tsx';
import { SandbayBreakdown } from './SandbayBreakdown.tsx';
import { useSigningSecrets } from './secrets.ts';
import { StandardBreakdown } from './StandardBreakdown.tsx';

/**
 * The signature breakdown of one attempt, for each scheme it was signed with (SPEC §8, §11):
 * Sandbay's X-Service-Signature, and Standard Webhooks' headers (v1 and v1a share one header).
 */
export function SignatureTab({ delivery }: { delivery: Delivery }) {
  const [number, setNumber] = useState(delivery.attempts.at(-1)?.number ?? 0);
  const attempt = delivery.attempts.find((a) => a.number === number) ?? delivery.attempts.at(-1);
  const signing = useSigningSecrets(delivery);
  if (!attempt)
    return (
      <EmptyState title="Not signed yet">
        Each attempt is signed when it is sent; the breakdown appears after the first one.
      </EmptyState>
    );
  const sandbay = attempt.signatureHeaders['x-service-signature'];
  const standard = attempt.signature.some((s) => s !== 'sandbay');
  return (
    <div className="stack">
      <div className="row">
        <label className="row nowrap">
          <span className="label">Attempt</span>
          <select value={attempt.number} onChange={(e) => setNumber(Number(e.target.value))}>
            {delivery.attempts.map((a) => (
              <option key={a.number} value={a.number}>
                #{a.number} ({a.trigger}) — {a.responseStatus ?? a.error ?? 'no response'}
              </option>
            ))}
          </select>
        </label>
        <span className="faint" data-testid="attempt-schemes">
          signed with {attempt.signature.join(' + ')}
        </span>
      </div>
      {sandbay !== undefined && <SandbayBreakdown delivery={delivery} header={sandbay} signing={signing} />}
      {standard && <StandardBreakdown delivery={delivery} attempt={attempt} signing={signing} />}
      {sandbay === undefined && !standard && <p className="callout warn">This attempt carried no signature header.</p>}
    </div>
  );
}
