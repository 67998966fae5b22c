import { useEffect, useState } from 'react';
import type { CheckCaseInfo, Endpoint } from '../../../shared/api-types.ts';
import type { CheckCaseResult, CheckRun } from '../../../shared/check-report.ts';
import { useAction } from '../../components/hooks.ts';
import { Field } from '../../components/Field.tsx';
import { InlineError, Link } from '../../components/Misc.tsx';
import { pathOf } from '../../router.ts';
import { useChecks } from '../../store/checks.ts';
import { formatDateTime } from '../../util/format.ts';
import { clockName } from '../../components/ClockTime.tsx';

/**
 * Whether a URL is one of this sandbox's built-in catchers (…/catch/<sandboxId>/<name>), on whatever host serves it.
 */
const isCatcherUrl = (url: string, sandboxId: string) => {
  try {
    return new RegExp(`^/catch/${sandboxId}/[^/]+$`).test(new URL(url).pathname);
  } catch {
    return false;
  }
};

const got = (c: CheckCaseResult) =>
  c.got.status === null ? (c.got.error ?? 'no answer') : `${c.got.status} · ${c.got.ms} ms`;

const marks = { passed: '✓', failed: '✕', blocked: '–' } as const;
const rowClass = { passed: 'ok', failed: 'bad', blocked: 'blocked' } as const;

function CaseRow({ result, info, sandboxId }: { result: CheckCaseResult; info?: CheckCaseInfo; sandboxId: string }) {
  const status = result.status ?? (result.ok ? 'passed' : 'failed');
  const mark = result.warning ? '!' : marks[status];
  return (
    <tr
      data-case={result.id}
      data-ok={result.ok}
      data-status={status}
      className={result.warning ? 'warn' : rowClass[status]}
    >
      <td className="mono" aria-label={status === 'blocked' ? `not scored: blocked by ${result.blockedBy}` : status}>
        {mark}
      </td>
      <td>
        <strong className="mono">{result.id}</strong>
        {info && <div className="faint">{info.sends}</div>}
      </td>
      <td className="mono">{result.expected}</td>
      <td className="mono">{status === 'blocked' && result.got.status === null ? 'not sent' : got(result)}</td>
      <td>
        {status === 'blocked' && (
          <div className="faint">
            Not scored: blocked by <span className="mono">{result.blockedBy}</span>.
          </div>
        )}
        {status === 'failed' && (
          <div className="stack tight">
            <div>
              <span className="label">Cause</span> {result.cause}
            </div>
            <div>
              <span className="label">Fix</span> {result.fix}
            </div>
          </div>
        )}
        <div className="row">
          {result.deliveryIds.map((id, i) => (
            <Link key={id} to={pathOf('deliveries', sandboxId, id)} className="small-text mono">
              {result.deliveryIds.length === 1 ? 'delivery' : `delivery ${i + 1}`}
            </Link>
          ))}
        </div>
      </td>
    </tr>
  );
}

function RunTable({ run, cases, sandboxId }: { run: CheckRun; cases: CheckCaseInfo[]; sandboxId: string }) {
  const { report } = run;
  return (
    <div className="stack tight" data-testid="check-report" data-status={run.status}>
      <div className="row" role="status" aria-live="polite">
        {run.status === 'running' ? (
          <strong>
            Checking… {report.cases.length}/{run.total}
          </strong>
        ) : (
          <strong data-testid="check-score">
            {report.passed}/{run.total} passed
          </strong>
        )}
        <span className="faint">
          {report.failed} failed{report.blocked ? ` · ${report.blocked} not scored` : ''} · {report.warnings} warnings ·{' '}
          {(report.durationMs / 1000).toFixed(1)} s · {run.url}
        </span>
        {run.status === 'interrupted' && <span className="tag warn">interrupted</span>}
      </div>
      {report.rootCause && (
        <div className="callout bad stack tight" data-testid="check-root-cause">
          <div>
            <strong>Root cause ({report.rootCause.caseId}):</strong> {report.rootCause.cause}
          </div>
          {report.rootCause.blocks.length > 0 && (
            <div className="faint">
              Not scored until {report.rootCause.caseId} passes:{' '}
              <span className="mono">{report.rootCause.blocks.join(', ')}</span>
            </div>
          )}
        </div>
      )}
      <progress
        max={run.total}
        value={report.cases.length}
        aria-label="Check progress"
        hidden={run.status !== 'running'}
      />
      <table className="data check-cases">
        <thead>
          <tr>
            <th />
            <th>Case</th>
            <th>Expected</th>
            <th>Got</th>
            <th>Cause and fix</th>
          </tr>
        </thead>
        <tbody>
          {report.cases.map((c) => (
            <CaseRow key={c.id} result={c} info={cases.find((x) => x.id === c.id)} sandboxId={sandboxId} />
          ))}
        </tbody>
      </table>
    </div>
  );
}

/**
 * Check receiver (SPEC §10): runs the battery against the endpoint with live progress, shows
 * the scored table with cause and fix per failure, and the last runs so the score can be seen improving.
 * Starting a run needs webhooks:write (`canRun`); a read-only session sees the stored runs.
 */
export function ReceiverCheck({
  endpoint,
  sandboxId,
  canRun,
}: {
  endpoint: Endpoint;
  sandboxId: string;
  canRun: boolean;
}) {
  const runs = useChecks((s) => s.runs[endpoint.id]);
  // The cases are worded for the scheme the endpoint signs with (Sandbay's whenever it is among them).
  const wording = endpoint.signature.includes('sandbay') ? 'sandbay' : endpoint.signature[0];
  const cases = useChecks((s) => s.cases[wording]) ?? [];
  const [shown, setShown] = useState<string | null>(null);
  const [effectsUrl, setEffectsUrl] = useState('');
  const load = useAction(() => useChecks.getState().load(endpoint.id, wording));
  const start = useAction(async () =>
    setShown((await useChecks.getState().start(endpoint.id, effectsUrl.trim() || undefined)).id),
  );
  useEffect(() => void load.run(), [endpoint.id]);
  const run = runs?.find((r) => r.id === shown) ?? runs?.[0];
  const catcher = isCatcherUrl(endpoint.url, sandboxId);
  const busy = start.busy || runs?.[0]?.status === 'running';
  return (
    <section className="stack tight receiver-check" aria-label={`Receiver check of ${endpoint.url}`}>
      {canRun && (
        <form
          className="form-row"
          onSubmit={(e) => {
            e.preventDefault();
            // Cannot reject: useAction's run() catches: the error shows inline.
            void start.run();
          }}
        >
          <Field
            label="Effects URL (optional)"
            className="grow"
            hint='A GET on your receiver answering how many events it has processed (a number or {"count": n}): the duplicate case then checks a delivery sent twice was acted on once.'
          >
            <input
              className="mono"
              value={effectsUrl}
              onChange={(e) => setEffectsUrl(e.target.value)}
              placeholder="http://localhost:3000/processed-count"
            />
          </Field>
          <button type="submit" className="align-end" disabled={busy} aria-label={`Check receiver ${endpoint.url}`}>
            {busy ? 'Checking…' : 'Check receiver'}
          </button>
        </form>
      )}
      {canRun && catcher && (
        <p className="field-hint" data-testid="check-catcher-note">
          This is a built-in catcher: it answers what you chose under Built-in catchers, whatever the signature, so the
          cases that expect a refusal fail here. Run the check against your own receiver.
        </p>
      )}
      <InlineError error={start.error ?? load.error} />
      {run && <RunTable run={run} cases={cases} sandboxId={sandboxId} />}
      {runs && runs.length > 1 && (
        <div className="row wrap" aria-label="Last runs">
          <span className="label">Last runs</span>
          {runs.map((r) => (
            <button
              type="button"
              key={r.id}
              className={`small${r.id === run?.id ? ' primary' : ''}`}
              onClick={() => setShown(r.id)}
              title={`${formatDateTime(r.createdAt)}, ${clockName.sandbox}`}
              data-run={r.id}
            >
              {r.status === 'running' ? '…' : `${r.report.passed}/${r.total}`}
            </button>
          ))}
        </div>
      )}
    </section>
  );
}
