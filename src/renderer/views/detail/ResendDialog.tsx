import { useEffect, useMemo, useState } from 'react';
import type { Delivery } from '../../../shared/api-types.ts';
import { diffJson } from '../../../shared/delivery-diff.ts';
import { api } from '../../api/client.ts';
import { Modal } from '../../components/Dialog.tsx';
import { Field } from '../../components/Field.tsx';
import { useAction } from '../../components/hooks.ts';
import { InlineError } from '../../components/Misc.tsx';
import { navigate, pathOf, useRoute } from '../../router.ts';
import { useApp } from '../../store/app.ts';
import { topicValidators, type DataValidator, type SchemaIssue } from '../../util/topic-schema.ts';

/** The editor's text as data: an object, or why it is not one. */
function parse(text: string): { data: Record<string, unknown> } | { error: string } {
  try {
    const value: unknown = JSON.parse(text);
    if (typeof value === 'object' && value !== null && !Array.isArray(value))
      return { data: value as Record<string, unknown> };
    return { error: 'The data must be a JSON object.' };
  } catch (err) {
    return { error: `Not JSON: ${(err as Error).message}` };
  }
}

const shown = (value: unknown) => (value === undefined ? '' : JSON.stringify(value));

/** The diff to the original, path by path, shown before anything is sent. */
const rowClass = { add: 'change-added', remove: 'change-removed', replace: 'change-changed' } as const;

function ChangeList({ changes }: { changes: ReturnType<typeof diffJson> }) {
  if (changes.length === 0)
    return <p className="faint">No change: it is resent with the data it had, as a new delivery.</p>;
  return (
    <table className="data" aria-label="Changes to the original data" data-testid="resend-diff">
      <thead>
        <tr>
          <th>Path</th>
          <th>Original</th>
          <th>Resent</th>
        </tr>
      </thead>
      <tbody>
        {changes.map((c) => (
          <tr key={c.path} className={rowClass[c.op]}>
            <td className="mono">/data{c.path}</td>
            <td className="mono diff-before">
              {c.op === 'add' ? <span className="faint">(none)</span> : shown(c.from)}
            </td>
            <td className="mono diff-after">
              {c.op === 'remove' ? <span className="faint">(removed)</span> : shown(c.to)}
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

/**
 * "Edit and resend" (issue 31): the envelope's data in a JSON editor, checked against the topic's schema as
 * you type, the changes to the original listed, then sent as a new delivery to the same endpoint.
 */
export function ResendButton({ delivery }: { delivery: Delivery }) {
  const [open, setOpen] = useState(false);
  return (
    <>
      <button type="button" onClick={() => setOpen(true)}>
        Edit and resend
      </button>
      {open && <ResendEditor delivery={delivery} onClose={() => setOpen(false)} />}
    </>
  );
}

function ResendEditor({ delivery, onClose }: { delivery: Delivery; onClose: () => void }) {
  const original = delivery.envelope.data;
  const [text, setText] = useState(() => JSON.stringify(original, null, 2));
  const [keepId, setKeepId] = useState(false);
  const [validate, setValidate] = useState<DataValidator | null>(null);
  const [schemaError, setSchemaError] = useState<string | null>(null);
  const route = useRoute();
  useEffect(() => {
    topicValidators().then(
      (all) => setValidate(() => all.get(delivery.topic) ?? null),
      (err: Error) =>
        setSchemaError(`The topic's schema could not be loaded (${err.message}); the server still checks it.`),
    );
  }, [delivery.topic]);
  const parsed = useMemo(() => parse(text), [text]);
  const issues: SchemaIssue[] = 'data' in parsed && validate ? validate(parsed.data) : [];
  const changes = 'data' in parsed ? diffJson(original, parsed.data) : [];
  const valid = 'data' in parsed && issues.length === 0;
  const send = useAction(async () => {
    if (!('data' in parsed)) return;
    const resent = await api.post<Delivery>(`/api/v1/webhooks/deliveries/${encodeURIComponent(delivery.id)}/resend`, {
      ...(changes.length > 0 ? { editedData: parsed.data } : {}),
      ...(keepId ? { keepDeliveryId: true } : {}),
    });
    onClose();
    useApp.getState().toast('success', `Resent as ${resent.id}.`, undefined, 'attempt');
    if ('sandboxId' in route) navigate(pathOf('deliveries', route.sandboxId, resent.id));
  });
  const actions = (
    <>
      <button type="button" onClick={onClose}>
        Cancel
      </button>
      <button type="button" className="primary" disabled={!valid || send.busy} onClick={() => void send.run()}>
        {send.busy ? 'Sending…' : changes.length > 0 ? 'Send edited' : 'Resend unchanged'}
      </button>
    </>
  );
  return (
    <Modal open onClose={onClose} title={`Edit and resend ${delivery.id}`} actions={actions}>
      <Field
        label={`Data of the ${delivery.topic} envelope`}
        className="resend-editor"
        error={'error' in parsed ? parsed.error : null}
        hint="Sent as a new delivery to the same endpoint, signed afresh in its schemes; the original stays as it is."
      >
        <textarea
          className="mono"
          rows={12}
          value={text}
          onChange={(e) => setText(e.target.value)}
          spellCheck={false}
          data-testid="resend-data"
        />
      </Field>
      {issues.length > 0 ? (
        <div className="callout bad" role="alert" data-testid="resend-issues">
          Does not match the {delivery.topic} schema:
          <ul>
            {issues.map((i) => (
              <li key={`${i.path} ${i.message}`}>
                <code>{i.path}</code> {i.message}
              </li>
            ))}
          </ul>
        </div>
      ) : (
        valid &&
        validate && (
          <p className="ok" data-testid="resend-valid" aria-live="polite">
            ✓ Matches the {delivery.topic} schema.
          </p>
        )
      )}
      {schemaError && <p className="field-hint">{schemaError}</p>}
      {'data' in parsed && <ChangeList changes={changes} />}
      <label className="row">
        <input type="checkbox" checked={keepId} onChange={(e) => setKeepId(e.target.checked)} />
        Keep the delivery id <span className="mono">{delivery.envelope.deliveryId ?? delivery.id}</span> (does the
        receiver process it once?)
      </label>
      <InlineError error={send.error} />
    </Modal>
  );
}
