import { useEffect, useState } from 'react';
import { breakDownStandard, type StandardBreakdownResult } from '../../../shared/standard-breakdown.ts';
import { standardHeaders } from '../../../shared/schemes.ts';
import type { Attempt, Delivery } from '../../../shared/api-types.ts';
import type { ApiProblem } from '../../api/client.ts';
import { useNow } from '../../components/hooks.ts';
import type { SigningSecrets } from '../../store/detail.ts';
import { formatAge, toleranceText } from '../../util/format.ts';
import { maskSecret } from '../../../shared/mask-secret.ts';
import { liveSecrets, publicKeyValues } from './secrets.ts';
import { ClockTime } from '../../components/ClockTime.tsx';

/** A public key is no secret: its start is enough to tell it apart from the others (and from the endpoint card's). */
const shortKey = (key: string) => (key.length > 16 ? `${key.slice(0, 14)}…` : key);

/**
 * A Standard Webhooks signature taken apart (SPEC §11): webhook-id, webhook-timestamp and each
 * signature of webhook-signature (v1 base64 HMAC, v1a base64 ed25519), the signed string's three
 * parts, and which key reproduces or verifies each signature, computed in this page.
 */
export function StandardBreakdown({
  delivery,
  attempt,
  signing,
}: {
  delivery: Delivery;
  attempt: Attempt;
  signing: SigningSecrets | ApiProblem | undefined;
}) {
  const live = liveSecrets(signing);
  const secrets = live.map((s) => s.secret);
  const publicKeys = publicKeyValues(signing);
  const tick = Math.floor(useNow() / 5000);
  const [result, setResult] = useState<StandardBreakdownResult | { error: string } | null>(null);
  const h = attempt.signatureHeaders;
  const headers = {
    id: h[standardHeaders.id],
    timestamp: h[standardHeaders.timestamp],
    signature: h[standardHeaders.signature],
  };
  const key = [...secrets, ...publicKeys, headers.signature, headers.timestamp].join('\n');

  useEffect(() => {
    let stale = false;
    breakDownStandard({ headers, body: delivery.rawBody, secrets, publicKeys, now: Math.floor(Date.now() / 1000) })
      .then((r) => !stale && setResult(r))
      .catch((err: Error) => !stale && setResult({ error: err.message }));
    return () => void (stale = true);
  }, [key, delivery.rawBody, tick]);

  if (!result) return <p className="muted">Computing…</p>;
  if ('error' in result)
    return (
      <div className="callout bad" role="alert">
        {result.error}
      </div>
    );
  if (!result.ok)
    return (
      <div className="callout bad" role="alert">
        This attempt&apos;s Standard Webhooks headers cannot be read ({result.reason}).
      </div>
    );
  const b = result.breakdown;
  // Which key, by the same number and mask as the tables below and the Sandbay breakdown: whsec_••••abcd, whpk_AbCd…
  const keyName = (m: NonNullable<(typeof b.signatures)[number]['matched']>) => {
    const generation = m.kind === 'secret' ? live[m.index] : live.filter((s) => s.publicKey)[m.index];
    const shown = m.kind === 'secret' ? maskSecret(secrets[m.index]) : shortKey(publicKeys[m.index]);
    return `${m.kind === 'secret' ? 'secret' : 'public key'} ${m.index + 1} (${generation?.expiresAt ? 'rotated out' : 'current'}: ${shown})`;
  };
  return (
    <div className="stack signature" data-testid="standard-breakdown">
      <h3>Standard Webhooks</h3>
      <table className="data parts">
        <tbody>
          <tr>
            <th scope="row" className="mono">
              webhook-id
            </th>
            <td className="mono" data-testid="sw-id">
              {b.id}
            </td>
            <td>the delivery id: the same on every attempt, the key to dedupe on</td>
          </tr>
          <tr>
            <th scope="row" className="mono">
              webhook-timestamp
            </th>
            <td className="mono" data-testid="sw-timestamp">
              {b.timestamp}
            </td>
            <td>
              <ClockTime at={b.timestamp * 1000} clock="real" withDate testId="sig-time" /> (real clock) ·{' '}
              {formatAge(b.ageSeconds)}{' '}
              <span className={b.standing === 'within_tolerance' ? 'ok' : 'bad'}>
                {toleranceText(b.standing, b.toleranceSeconds)}
              </span>
            </td>
          </tr>
          {b.signatures.map((s, i) => (
            <tr key={i} data-testid="sw-signature">
              <th scope="row" className="mono">
                {s.version}
              </th>
              <td className="mono wrap" data-testid="sw-signature-value">
                {s.value}
              </td>
              <td className={s.matched ? 'ok' : 'bad'} data-testid="sw-signature-match">
                {s.version === 'v1' ? 'base64 HMAC-SHA256' : 'base64 ed25519'} ·{' '}
                {s.matched
                  ? `✓ ${keyName(s.matched)}`
                  : live.length
                    ? '✕ no live key reproduces it'
                    : 'keys not loaded'}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      <div className="stack tight">
        <div className="row">
          <h3>Signed string</h3>
          <span className="faint">webhook-id + &quot;.&quot; + webhook-timestamp + &quot;.&quot; + raw body</span>
        </div>
        <pre
          className="code signed-string"
          data-testid="sw-signed-string"
          tabIndex={0}
          aria-label="Standard Webhooks signed string"
        >
          <span className="sig-id">{b.id}</span>
          <span className="sig-sep">.</span>
          <span className="sig-t">{b.timestamp}</span>
          <span className="sig-sep">.</span>
          <span className="sig-body">{delivery.rawBody}</span>
        </pre>
        <p className="byte-legend mono" data-testid="sw-byte-count">
          {b.bytes.id} + 1 + {b.bytes.timestamp} + 1 + {b.bytes.body} = <strong>{b.bytes.total} bytes</strong> (UTF-8).
          Signatures are base64, not hex; the HMAC key is the secret&apos;s base64 after whsec_, decoded.
        </p>
      </div>
      {b.expected.length > 0 && (
        <table className="data recomputed">
          <thead>
            <tr>
              <th>Secret</th>
              <th>v1 recomputed here (base64)</th>
            </tr>
          </thead>
          <tbody>
            {b.expected.map((v, i) => (
              <tr key={i} data-testid="sw-recomputed">
                <td>
                  secret {i + 1} <span className="mono faint">{maskSecret(secrets[i])}</span>
                </td>
                <td className="mono wrap">{v ?? 'not a base64 secret'}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </div>
  );
}
