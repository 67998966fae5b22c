import { useState } from 'react';
import { diagnose, type Diagnosis, type Finding } from '../../../shared/receiver-doctor.ts';
import type { Delivery } from '../../../shared/api-types.ts';
import { Field } from '../../components/Field.tsx';
import { useAction } from '../../components/hooks.ts';
import { InlineError } from '../../components/Misc.tsx';
import { detectStack, fixForFinding, type ReceiverStack } from '../../../shared/receiver-fixes.ts';
import { standardHeaders } from '../../../shared/schemes.ts';
import { echoHeaderName } from '../../../shared/signature.ts';
import { EchoDiagnosis, echoedAttempt } from './EchoDiagnosis.tsx';
import { publicKeyValues, secretValues, useSigningSecrets } from './secrets.ts';

const maxPaste = 1024 * 1024;

function FindingView({ finding, stack }: { finding: Finding; stack?: ReceiverStack }) {
  const d = finding.difference;
  const fix = finding.severity === 'error' ? fixForFinding(finding.code, stack, finding.form?.language) : undefined;
  return (
    <li className={`finding ${finding.severity}`} data-code={finding.code}>
      <strong>
        {finding.severity === 'ok' ? '✓' : finding.severity === 'warning' ? '!' : '✕'} {finding.title}
      </strong>
      <p>{finding.detail}</p>
      {fix && (
        <p data-testid="finding-fix">
          <span className="label">Fix</span> {fix}
        </p>
      )}
      {d && (
        <div className="difference">
          <div className="faint">
            First difference at line {d.line}, column {d.column} (byte {d.byteOffset}):
          </div>
          <div className="mono">
            <span className="label">sent</span> <code>{d.expected}</code>
          </div>
          <div className="mono">
            <span className="label">yours</span> <code>{d.actual}</code>
          </div>
        </div>
      )}
    </li>
  );
}

/**
 * The receiver doctor: what the receiver saw, from its Sandbay-Echo answer when it sent one, or
 * pasted; it names the mistake — re-serialised JSON (and by which language's serialiser), Latin-1,
 * whitespace, CRLF, a BOM, the secret's prefix, the wrong secret, a stale or future timestamp — with
 * the fix in the receiver's language when its answers tell it.
 */
export function DoctorTab({ delivery }: { delivery: Delivery }) {
  const signing = useSigningSecrets(delivery);
  // A Standard Webhooks delivery is diagnosed from its three headers, pasted as lines (SPEC §11).
  const last = delivery.attempts.at(-1);
  const standard = Boolean(last?.signature.some((s) => s !== 'sandbay') && !last.signature.includes('sandbay'));
  const keys = [...secretValues(signing), ...publicKeyValues(signing)];
  const [body, setBody] = useState('');
  const [header, setHeader] = useState('');
  const [secret, setSecret] = useState('');
  const [showSecret, setShowSecret] = useState(false);
  const [result, setResult] = useState<Diagnosis | null>(null);
  const [inputError, setInputError] = useState<{ body?: string; header?: string; secret?: string }>({});
  const check = useAction(async () => {
    const errors = {
      body: body.length > maxPaste ? 'At most 1 MiB (the largest body Sandbay sends).' : undefined,
      header: header.trim()
        ? undefined
        : standard
          ? 'Paste the webhook-id, webhook-timestamp and webhook-signature headers your receiver got.'
          : 'Paste the X-Service-Signature header your receiver got.',
      secret: secret
        ? undefined
        : `Paste the secret your receiver verifies with${standard ? ' (or, for v1a, the public key)' : ''}.`,
    };
    setInputError(errors);
    if (errors.body || errors.header || errors.secret) return setResult(null);
    setResult(
      await diagnose({
        body,
        header,
        secret,
        now: Math.floor(Date.now() / 1000),
        reference: { rawBody: delivery.rawBody, secrets: keys },
      }),
    );
  });
  const echoed = echoedAttempt(delivery);
  // The receiver's language and framework, from the headers it answered with.
  const stack = delivery.attempts.map((a) => detectStack(a.responseHeaders)).find(Boolean);
  const fill = () => {
    setBody(delivery.rawBody);
    setHeader(
      standard
        ? Object.values(standardHeaders)
            .map((name) => `${name}: ${last?.signatureHeaders[name] ?? ''}`)
            .join('\n')
        : (last?.signatureHeader ?? ''),
    );
    setResult(null);
  };
  return (
    <div className="stack doctor">
      {echoed ? (
        <EchoDiagnosis delivery={delivery} attempt={echoed} secrets={secretValues(signing)} />
      ) : (
        <p className="muted">
          A receiver that answers with a {echoHeaderName} header (what it verified: see the receivers docs) is diagnosed
          here by itself.
        </p>
      )}
      <p className="muted">
        Or paste the body, signature header and secret exactly as your receiver saw them. The doctor compares them with
        what Sandbay sent and tries the usual mistakes until one explains the mismatch.
      </p>
      <form
        className="stack"
        onSubmit={(e) => {
          e.preventDefault();
          // Cannot reject: useAction's run() catches: the error shows inline.
          void check.run();
        }}
      >
        <Field label="Body your receiver verified" error={inputError.body}>
          <textarea
            className="mono"
            rows={6}
            value={body}
            onChange={(e) => setBody(e.target.value)}
            spellCheck={false}
          />
        </Field>
        {standard ? (
          <Field
            label="Standard Webhooks headers"
            error={inputError.header}
            hint="One per line: webhook-id: …, webhook-timestamp: …, webhook-signature: …"
          >
            <textarea
              className="mono"
              rows={3}
              value={header}
              onChange={(e) => setHeader(e.target.value)}
              spellCheck={false}
              placeholder={'webhook-id: dlv_…\nwebhook-timestamp: …\nwebhook-signature: v1,…'}
            />
          </Field>
        ) : (
          <Field label="X-Service-Signature header" error={inputError.header}>
            <input
              className="mono"
              value={header}
              onChange={(e) => setHeader(e.target.value)}
              spellCheck={false}
              placeholder="t=…,v1=…"
            />
          </Field>
        )}
        <Field
          label={standard ? 'Secret or public key' : 'Secret'}
          error={inputError.secret}
          hint="Used only in this page; never sent anywhere."
        >
          <input
            className="mono"
            type={showSecret ? 'text' : 'password'}
            value={secret}
            onChange={(e) => setSecret(e.target.value)}
            autoComplete="off"
            spellCheck={false}
            placeholder={standard ? 'whsec_… or whpk_…' : 'whsec_…'}
          />
        </Field>
        <div className="row">
          <button type="submit" className="primary" disabled={check.busy}>
            Diagnose
          </button>
          <button type="button" onClick={fill}>
            Fill with what Sandbay sent
          </button>
          <label className="row nowrap">
            <input type="checkbox" checked={showSecret} onChange={(e) => setShowSecret(e.target.checked)} /> Show secret
          </label>
        </div>
        <InlineError error={check.error} />
      </form>
      {result && (
        <section aria-live="polite" aria-label="Diagnosis" data-testid="diagnosis" data-verified={result.verified}>
          <div className={`callout ${result.verified ? 'ok' : 'bad'}`}>
            <strong>
              {result.verified ? 'Verified: a correct receiver accepts this request.' : 'Verification fails.'}
            </strong>
          </div>
          <ul className="findings">
            {result.findings.map((f, i) => (
              <FindingView key={i} finding={f} stack={stack} />
            ))}
          </ul>
        </section>
      )}
    </div>
  );
}
