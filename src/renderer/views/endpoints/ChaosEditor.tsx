import { useState } from 'react';
import { ApiProblem } from '../../api/client.ts';
import type { Endpoint, EndpointChaos } from '../../../shared/api-types.ts';
import { Field } from '../../components/Field.tsx';
import { useAction } from '../../components/hooks.ts';
import { InlineError } from '../../components/Misc.tsx';
import { useEndpoints } from '../../store/endpoints.ts';
import { chaosOf, chaosProblems, draftOf, type ChaosDraft } from './chaos-draft.ts';

/**
 * Duplicate rate, reorder window, added delay and seed, with what is wrong beside each (checked as typed, else the
 * server's message).
 */
export function ChaosFields({
  draft,
  onChange,
  problem,
}: {
  draft: ChaosDraft;
  onChange: (d: ChaosDraft) => void;
  problem?: ApiProblem | null;
}) {
  const typed = chaosProblems(draft);
  const field = (key: keyof ChaosDraft, label: string, hint: string, pointer: string) => (
    <Field label={label} hint={hint} error={typed[key] ?? problem?.fieldError(`/chaos/${pointer}`)}>
      <input
        className="mono"
        inputMode="numeric"
        value={draft[key]}
        onChange={(e) => onChange({ ...draft, [key]: e.target.value })}
      />
    </Field>
  );
  return (
    <div className="form-row">
      {field('duplicatePercent', 'Duplicate %', 'Sent again after a 2xx', 'duplicateRate')}
      {field('reorderMs', 'Reorder window (ms)', 'Held back 0…window', 'reorderWindowMs')}
      {field('delayMs', 'Added delay (ms)', 'Before the first attempt', 'delayMs')}
      {field('seed', 'Seed', 'Same seed, same faults', 'seed')}
    </div>
  );
}

/** Chaos on a registered endpoint: the faults real senders cause, marked on each attempt they touch. */
export function ChaosEditor({ endpoint, canEdit }: { endpoint: Endpoint; canEdit: boolean }) {
  const [draft, setDraft] = useState(() => draftOf(endpoint.chaos));
  const save = useAction((chaos: Partial<EndpointChaos> | null) =>
    useEndpoints.getState().update(endpoint.id, { chaos }),
  );
  const problem = save.error instanceof ApiProblem ? save.error : null;
  const state = (
    <>Chaos: {endpoint.chaos ? <span className="tag warn">on (seed {endpoint.chaos.seed})</span> : 'off'}</>
  );
  // Changing chaos needs webhooks:write; a read-only session sees whether it is on.
  if (!canEdit)
    return (
      <p className="chaos" data-testid="chaos">
        {state}
      </p>
    );
  return (
    <details className="chaos" data-testid="chaos">
      <summary>{state}</summary>
      <form
        className="stack tight"
        onSubmit={(e) => {
          e.preventDefault();
          if (Object.keys(chaosProblems(draft)).length === 0)
            // Cannot reject: useAction's run() catches: the error shows inline.
            void save.run(chaosOf(draft)).then((ep) => ep && setDraft(draftOf(ep.chaos)));
        }}
      >
        <p className="field-hint">
          Real senders deliver twice, out of order and late. Each injected fault is marked on its attempt in the
          delivery log.
        </p>
        <ChaosFields draft={draft} onChange={setDraft} problem={problem} />
        <div className="row">
          <button type="submit" disabled={save.busy}>
            Save chaos
          </button>
          {endpoint.chaos && (
            <button
              type="button"
              disabled={save.busy}
              onClick={() => void save.run(null).then(() => setDraft(draftOf(null)))}
            >
              Turn off
            </button>
          )}
        </div>
        <InlineError
          error={problem && !problem.fieldError('/chaos') ? problem : save.error && !problem ? save.error : null}
        />
      </form>
    </details>
  );
}
