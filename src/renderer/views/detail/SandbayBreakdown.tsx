import { useEffect, useState } from 'react';
import { breakDownSignature, type BreakdownResult } from '../../../shared/signature-breakdown.ts';
import { ApiProblem } from '../../api/client.ts';
import type { Delivery } from '../../../shared/api-types.ts';
import { useNow } from '../../components/hooks.ts';
import { Secret } from '../../components/Secret.tsx';
import { maskSecret } from '../../../shared/mask-secret.ts';
import { formatAge, toleranceText } from '../../util/format.ts';
import type { SigningSecrets } from '../../store/detail.ts';
import { liveSecrets, secretValues } from './secrets.ts';
import { ClockTime } from '../../components/ClockTime.tsx';

function SignedString({
  timestamp,
  body,
  bytes,
}: {
  timestamp: number;
  body: string;
  bytes: { timestamp: number; body: number; total: number };
}) {
  return (
    <div className="stack tight">
      <div className="row">
        <h3>Signed string</h3>
        <span className="faint">&lt;t&gt; + &quot;.&quot; + raw body</span>
      </div>
      <pre className="code signed-string" data-testid="signed-string" tabIndex={0} aria-label="Signed string">
        <span className="sig-t">{timestamp}</span>
        <span className="sig-sep" title="the separator: one byte, 0x2E">
          .
        </span>
        <span className="sig-body">{body}</span>
      </pre>
      <p className="byte-legend mono" data-testid="byte-count">
        <span className="sig-t">{bytes.timestamp} bytes</span> + <span className="sig-sep">1 byte (&quot;.&quot;)</span>{' '}
        + <span className="sig-body">{bytes.body} bytes</span> = <strong>{bytes.total} bytes</strong> (UTF-8)
      </p>
    </div>
  );
}

/**
 * Sandbay's signature taken apart: the header split into t and each v1, the exact signed string,
 * the HMAC recomputed here with the endpoint's live secrets, and the timestamp's age.
 */
export function SandbayBreakdown({
  delivery,
  header,
  signing,
}: {
  delivery: Delivery;
  header: string;
  signing: SigningSecrets | ApiProblem | undefined;
}) {
  const secrets = secretValues(signing);
  const tick = Math.floor(useNow() / 5000);
  const [result, setResult] = useState<BreakdownResult | { error: string } | null>(null);
  const secretsKey = secrets.join('\n');

  useEffect(() => {
    if (!header) return;
    let stale = false;
    // The real clock at this moment (the ticker may be up to a second behind): t is never "in the future".
    breakDownSignature({ header, body: delivery.rawBody, secrets, now: Math.floor(Date.now() / 1000) })
      .then((r) => !stale && setResult(r))
      .catch((err: Error) => !stale && setResult({ error: err.message }));
    return () => void (stale = true);
  }, [header, delivery.rawBody, secretsKey, tick]);

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
        This attempt&apos;s header cannot be parsed ({result.reason}).
      </div>
    );
  const b = result.breakdown;
  const live = liveSecrets(signing);
  return (
    <div className="stack signature">
      <div className="stack tight">
        <h3>X-Service-Signature</h3>
        <code className="header-raw" data-testid="signature-header">
          {header}
        </code>
        <table className="data parts">
          <tbody>
            <tr>
              <th scope="row" className="mono">
                t
              </th>
              <td className="mono" data-testid="sig-timestamp">
                {b.timestamp}
              </td>
              <td>
                <ClockTime at={b.timestamp * 1000} clock="real" withDate testId="sig-time" /> (real clock) ·{' '}
                {formatAge(b.ageSeconds)}{' '}
                <span className={b.standing === 'within_tolerance' ? 'ok' : 'bad'} data-testid="tolerance">
                  {toleranceText(b.standing, b.toleranceSeconds)}
                </span>
              </td>
            </tr>
            {b.v1.map((v, i) => (
              <tr key={i} data-testid="sig-v1">
                <th scope="row" className="mono">
                  v1
                </th>
                <td className="mono wrap" data-testid="sig-v1-value">
                  {v.value}
                </td>
                <td className={v.matchedSecret === null ? 'bad' : 'ok'} data-testid="sig-v1-match">
                  {v.matchedSecret === null
                    ? secrets.length
                      ? '✕ no live secret reproduces it'
                      : 'secrets not loaded'
                    : `✓ matches secret ${v.matchedSecret + 1}${live[v.matchedSecret]?.expiresAt ? ' (rotated out)' : ' (current)'}`}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
        {b.standing !== 'within_tolerance' && (
          <p className="callout warn">
            A receiver verifying this header now would reject it as{' '}
            {b.standing === 'stale' ? 'too old' : 'from the future'}. Replay the delivery or use Copy as curl to get one
            signed now.
          </p>
        )}
      </div>
      <SignedString timestamp={b.timestamp} body={delivery.rawBody} bytes={b.bytes} />
      <div className="stack tight">
        <div className="row">
          <h3>Recomputed here</h3>
          <span className="faint">HMAC-SHA256(secret, signed string), with WebCrypto in this page</span>
        </div>
        {signing instanceof ApiProblem && (
          <div className="callout bad" role="alert">
            Cannot read the signing secrets: {signing.message}
          </div>
        )}
        <table className="data recomputed">
          <thead>
            <tr>
              <th>Secret</th>
              <th>Status</th>
              <th>HMAC-SHA256 (hex)</th>
              <th>Match</th>
            </tr>
          </thead>
          <tbody>
            {b.expected.map((hex, i) => {
              const s = live[i];
              const matched = b.v1.some((v) => v.matchedSecret === i);
              return (
                <tr key={i} data-testid="recomputed">
                  <td>
                    <Secret value={secrets[i]} label={`secret ${i + 1} (${maskSecret(secrets[i])})`} />
                  </td>
                  <td>
                    {signing && !(signing instanceof ApiProblem) && signing.source === 'test_secret' ? (
                      'webhook test secret'
                    ) : s?.expiresAt ? (
                      <>
                        expires <ClockTime at={s.expiresAt} clock="sandbox" withDate /> (sandbox clock)
                      </>
                    ) : (
                      'current'
                    )}
                  </td>
                  <td className="mono wrap" data-testid="recomputed-hmac">
                    {hex}
                  </td>
                  <td className={matched ? 'ok' : 'faint'}>{matched ? '✓ in header' : '—'}</td>
                </tr>
              );
            })}
          </tbody>
        </table>
      </div>
    </div>
  );
}
