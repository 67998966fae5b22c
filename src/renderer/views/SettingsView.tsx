import { useState } from 'react';
import { api } from '../api/client.ts';
import type { ResetResult } from '../../shared/api-types.ts';
import { ConfirmButton } from '../components/Dialog.tsx';
import { Field } from '../components/Field.tsx';
import { useAction, useNow } from '../components/hooks.ts';
import { InlineError } from '../components/Misc.tsx';
import { useApp } from '../store/app.ts';
import { reloadSandboxData } from '../store/live.ts';
import { countsText, counted, formatDuration } from '../util/format.ts';
import { rememberToken } from '../store/tokens.ts';
import { useCan } from '../store/signin.ts';
import { ClockTime } from '../components/ClockTime.tsx';

const steps = [30, 120, 600, 3600, 86_400];
const units = { seconds: 1, minutes: 60, hours: 3600, days: 86_400 } as const;
const maxSeconds = 366 * 86_400;

function ClockPanel() {
  const offset = useApp((s) => s.clockOffsetMs);
  const now = useNow();
  const [amount, setAmount] = useState('5');
  const [unit, setUnit] = useState<keyof typeof units>('minutes');
  const advance = useAction(async (seconds: number) => {
    const clock = await useApp.getState().advanceClock(seconds);
    useApp
      .getState()
      .toast(
        'info',
        `Advanced ${formatDuration(seconds * 1000)}; ${counted(clock.jobsRun, 'due job')} ran.`,
        undefined,
        'clock',
      );
  });
  const canAdvance = useCan('sandbox:write');
  const seconds = Number(amount) * units[unit];
  const amountError =
    !(Number(amount) > 0) || !Number.isFinite(seconds)
      ? 'A positive number.'
      : seconds > maxSeconds
        ? 'At most a year at a time.'
        : null;
  return (
    <section className="panel" aria-labelledby="clock-title">
      <div className="panel-head">
        <h2 id="clock-title">Sandbox clock</h2>
      </div>
      <div className="panel-body stack">
        <dl className="facts">
          <dt>Sandbox time</dt>
          <dd className="mono big" data-testid="clock-now">
            <ClockTime at={now + offset} clock="sandbox" withDate />
          </dd>
          <dt>Real time</dt>
          <dd className="mono">
            <ClockTime at={now} clock="real" withDate />
          </dd>
          <dt>Ahead by</dt>
          <dd>{offset >= 1000 ? formatDuration(offset) : 'nothing (in step with real time)'}</dd>
        </dl>
        <p className="muted">
          Advancing runs everything that falls due on the way, in order — retries, expiries, payouts, reports — exactly
          as waiting would. Signatures keep using the real clock.
        </p>
        {canAdvance && (
          <>
            <div className="row" role="group" aria-label="Advance the clock by">
              {steps.map((s) => (
                <button key={s} type="button" disabled={advance.busy} onClick={() => void advance.run(s)}>
                  +{formatDuration(s * 1000)}
                </button>
              ))}
            </div>
            <form
              className="form-row"
              noValidate
              onSubmit={(e) => {
                e.preventDefault();
                // Cannot reject: useAction's run() catches: the error shows inline.
                if (!amountError) void advance.run(seconds);
              }}
            >
              <Field label="Advance by" error={amountError}>
                <input type="number" min={1} value={amount} onChange={(e) => setAmount(e.target.value)} />
              </Field>
              <Field label="Unit">
                <select value={unit} onChange={(e) => setUnit(e.target.value as keyof typeof units)}>
                  {Object.keys(units).map((u) => (
                    <option key={u} value={u}>
                      {u}
                    </option>
                  ))}
                </select>
              </Field>
              <button type="submit" className="align-end" disabled={advance.busy || Boolean(amountError)}>
                {advance.busy ? 'Advancing…' : 'Advance'}
              </button>
            </form>
            <InlineError error={advance.error} />
          </>
        )}
      </div>
    </section>
  );
}

function ResetPanel({ sandboxId }: { sandboxId: string }) {
  const [scope, setScope] = useState<'data' | 'all'>('data');
  const [result, setResult] = useState<string | null>(null);
  const reset = async () => {
    const res = await api.post<ResetResult>('/api/v1/sandbox/reset', { scope });
    if (res.credentials) rememberToken(sandboxId, res.credentials.accessToken, res.credentials.expiresIn);
    setResult(
      `Reset in ${res.durationMs} ms: ${countsText(res.counts)}.${res.credentials ? ' Every token was revoked; the portal has a fresh one.' : ''}`,
    );
    reloadSandboxData();
  };
  return (
    <section className="panel" aria-labelledby="reset-title">
      <div className="panel-head">
        <h2 id="reset-title">Reset</h2>
      </div>
      <div className="panel-body stack">
        <fieldset className="stack tight">
          <legend className="label">What to reset</legend>
          <label className="row nowrap">
            <input type="radio" name="scope" checked={scope === 'data'} onChange={() => setScope('data')} />
            Data: orders, catalog, customers… back to the seed; clock and delivery log cleared. Endpoints, catchers and
            tokens stay.
          </label>
          <label className="row nowrap">
            <input type="radio" name="scope" checked={scope === 'all'} onChange={() => setScope('all')} />
            Everything: also deletes endpoints and catchers and revokes every token.
          </label>
        </fieldset>
        <div className="row">
          <ConfirmButton
            label="Reset sandbox…"
            danger
            className="danger"
            title="Reset this sandbox?"
            confirmLabel="Reset"
            onConfirm={reset}
            message={
              <p>
                {scope === 'all'
                  ? 'All data, endpoints, catchers and tokens'
                  : 'All commerce data, the clock and the delivery log (pending deliveries included)'}{' '}
                of <code>{sandboxId}</code> go back to factory defaults. Other sandboxes are untouched.
              </p>
            }
          />
        </div>
        {result && (
          <div className="callout ok" role="status">
            {result}
          </div>
        )}
      </div>
    </section>
  );
}

/** Sandbox → Clock & reset. */
export function SettingsView({ sandboxId }: { sandboxId: string }) {
  const canReset = useCan('sandbox:write');
  return (
    <div className="page stack">
      <div className="pane-head">
        <h1>Clock &amp; reset</h1>
        <span className="mono faint">{sandboxId}</span>
      </div>
      <ClockPanel />
      {canReset && <ResetPanel sandboxId={sandboxId} />}
    </div>
  );
}
