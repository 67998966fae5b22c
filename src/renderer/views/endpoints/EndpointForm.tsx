import { useState } from 'react';
import { ApiProblem } from '../../api/client.ts';
import type { Endpoint } from '../../../shared/api-types.ts';
import { Field } from '../../components/Field.tsx';
import { useAction } from '../../components/hooks.ts';
import { useEndpoints } from '../../store/endpoints.ts';
import type { SchemeName } from '../../../shared/schemes.ts';
import { ChaosFields } from './ChaosEditor.tsx';
import { chaosOf, chaosProblems, draftOf } from './chaos-draft.ts';
import { SchemePicker } from './SchemePicker.tsx';
import { patternsOf, TopicPicker } from './TopicPicker.tsx';
import { urlProblem } from './validate.ts';

/** Registers an endpoint: URL, description and topics, with errors shown beside the field they concern. */
export function EndpointForm({
  initialUrl = '',
  onCreated,
  onCancel,
}: {
  initialUrl?: string;
  onCreated: (e: Endpoint) => void;
  onCancel: () => void;
}) {
  const [url, setUrl] = useState(initialUrl);
  const [description, setDescription] = useState('');
  const [picked, setPicked] = useState<Set<string>>(new Set());
  const [touched, setTouched] = useState(false);
  const [chaos, setChaos] = useState(() => draftOf(null));
  const [signature, setSignature] = useState<SchemeName[]>(['sandbay']);
  const create = useAction(async () => {
    const endpoint = await useEndpoints.getState().create({
      url: url.trim(),
      topics: patternsOf(picked),
      description: description.trim() || undefined,
      chaos: chaosOf(chaos) ?? undefined,
      signature,
    });
    onCreated(endpoint);
  });
  const server = create.error instanceof ApiProblem ? create.error : null;
  const urlError = (touched ? urlProblem(url) : null) ?? server?.fieldError('/url');
  const topicsError =
    (touched && picked.size === 0 ? 'Pick at least one topic (or All topics).' : null) ?? server?.fieldError('/topics');
  const other =
    create.error && !server?.fieldError('/url') && !server?.fieldError('/topics') && !server?.fieldError('/chaos')
      ? create.error.message
      : null;
  const submit = () => {
    setTouched(true);
    if (urlProblem(url) || picked.size === 0 || Object.keys(chaosProblems(chaos)).length > 0) return;
    // Cannot reject: useAction's run() catches: the error shows inline.
    void create.run();
  };
  return (
    <form
      className="panel endpoint-form"
      aria-labelledby="new-endpoint-title"
      onSubmit={(e) => {
        e.preventDefault();
        submit();
      }}
      noValidate
    >
      <div className="panel-head">
        <h2 id="new-endpoint-title">New endpoint</h2>
      </div>
      <div className="panel-body stack">
        <div className="form-row">
          <Field label="Endpoint URL" error={urlError} className="grow">
            <input
              className="mono"
              value={url}
              onChange={(e) => setUrl(e.target.value)}
              placeholder="http://localhost:3000/webhooks"
              autoFocus
            />
          </Field>
          <Field label="Description (optional)" className="grow">
            <input value={description} onChange={(e) => setDescription(e.target.value)} maxLength={500} />
          </Field>
        </div>
        <TopicPicker picked={picked} onChange={setPicked} error={topicsError} />
        <SchemePicker value={signature} onChange={setSignature} />
        <details>
          <summary>Chaos (off): inject the faults real senders cause</summary>
          <ChaosFields draft={chaos} onChange={setChaos} problem={server} />
        </details>
        {other && (
          <div className="field-error" role="alert">
            {other}
          </div>
        )}
        <div className="row">
          <button type="submit" className="primary" disabled={create.busy}>
            {create.busy ? 'Creating…' : 'Create endpoint'}
          </button>
          <button type="button" onClick={onCancel}>
            Cancel
          </button>
        </div>
      </div>
    </form>
  );
}
