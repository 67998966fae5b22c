import { useEffect, useState } from 'react';
import type { Attempt, Delivery } from '../../../shared/api-types.ts';
import { diagnoseEcho, echoHeaderName, parseEcho, type EchoFinding } from '../../../shared/receiver-echo.ts';
import { detectStack, fixForFinding } from '../../../shared/receiver-fixes.ts';
import { parseSignatureHeader } from '../../../shared/signature.ts';

/** The newest attempt whose answer carries the receiver's Sandbay-Echo. */
export const echoedAttempt = (delivery: Delivery): Attempt | undefined =>
  [...delivery.attempts].reverse().find((a) => parseEcho(a.responseHeaders, a.responseBody));

/**
 * What the receiver says it verified (its Sandbay-Echo), compared by the doctor with what Sandbay
 * sent, without pasting anything: which bytes it hashed and with which reading of the secret.
 */
export function EchoDiagnosis({
  delivery,
  attempt,
  secrets,
}: {
  delivery: Delivery;
  attempt: Attempt;
  secrets: readonly string[];
}) {
  const [findings, setFindings] = useState<EchoFinding[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    const echo = parseEcho(attempt.responseHeaders, attempt.responseBody);
    if (!echo || secrets.length === 0) return;
    const timestamp = parseSignatureHeader(attempt.signatureHeader)?.timestamp ?? 0;
    diagnoseEcho({ echo, sent: delivery.rawBody, timestamp, secrets }).then(setFindings, (err: Error) =>
      setError(err.message),
    );
  }, [delivery.id, attempt.number, secrets.join()]);
  const stack = detectStack(attempt.responseHeaders);
  return (
    <section className="stack tight" aria-label="What your receiver verified" data-testid="echo-diagnosis">
      <h3>What your receiver verified</h3>
      <p className="muted">
        From its {echoHeaderName} answer to attempt #{attempt.number}, compared with the bytes Sandbay sent.
      </p>
      {error && <p className="error">{error}</p>}
      {findings && (
        <ul className="findings">
          {findings.map((f, i) => {
            const fix = fixForFinding(f.code, stack, f.form?.language);
            return (
              <li key={i} className={`finding ${f.code === 'echo_matches' ? 'ok' : 'error'}`} data-code={f.code}>
                <strong>
                  {f.code === 'echo_matches' ? '✓' : '✕'} {f.title}
                </strong>
                <p>{f.detail}</p>
                {fix && (
                  <p>
                    <span className="label">Fix</span> {fix}
                  </p>
                )}
              </li>
            );
          })}
        </ul>
      )}
    </section>
  );
}
