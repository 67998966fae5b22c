import { useState } from 'react';
import type { TestWebhookResult } from '../../../shared/api-types.ts';
import { categories, topicCategories } from '../../../shared/topics.ts';
import { api, ApiProblem } from '../../api/client.ts';
import { Field } from '../../components/Field.tsx';
import { useAction } from '../../components/hooks.ts';
import { pathOf } from '../../router.ts';
import { useApp } from '../../store/app.ts';
import { useEndpoints } from '../../store/endpoints.ts';
import { targetProblem } from './validate.ts';

/** A labelled select of the 33 topics, grouped by category. */
export function TopicSelect({
  value,
  onChange,
  label = 'Topic',
}: {
  value: string;
  onChange: (t: string) => void;
  label?: string;
}) {
  return (
    <Field label={label}>
      <select value={value} onChange={(e) => onChange(e.target.value)}>
        {categories.map((c) => (
          <optgroup key={c} label={c}>
            {topicCategories[c].map((t) => (
              <option key={t} value={t}>
                {t}
              </option>
            ))}
          </optgroup>
        ))}
      </select>
    </Field>
  );
}

/**
 * Sends a realistic sample of a topic (with the user's data merged over it, if any) to an endpoint or URL, and links to
 * the delivery.
 */
export async function sendTestWebhook(
  sandboxId: string,
  topic: string,
  endpoint: string,
  data?: Record<string, unknown>,
): Promise<string> {
  const res = await api.post<TestWebhookResult>('/api/v1/webhooks/test', {
    topic,
    endpoint,
    ...(data ? { data } : {}),
  });
  useApp.getState().toast('success', `Test ${topic} queued.`, {
    href: pathOf('deliveries', sandboxId, res.deliveryId),
    label: 'Open delivery',
  });
  return res.deliveryId;
}

/** The data field's JSON: nothing, an object, or why it is neither. */
function dataOf(text: string): { object?: Record<string, unknown> } | { error: string } {
  if (!text.trim()) return {};
  try {
    const value: unknown = JSON.parse(text);
    if (typeof value === 'object' && value !== null && !Array.isArray(value))
      return { object: value as Record<string, unknown> };
    return { error: 'Must be a JSON object, e.g. {"total": 10.5}.' };
  } catch (err) {
    return { error: `Not JSON: ${(err as Error).message}` };
  }
}

/** "Send a test webhook": topic plus a registered endpoint or a URL, and optionally your own data. */
export function TestWebhookForm({ sandboxId }: { sandboxId: string }) {
  const endpoints = useEndpoints((s) => s.endpoints);
  const [topic, setTopic] = useState('order.placed');
  const [target, setTarget] = useState('');
  const [touched, setTouched] = useState(false);
  const [dataText, setDataText] = useState('');
  const data = dataOf(dataText);
  const send = useAction(() =>
    sendTestWebhook(sandboxId, topic, target.trim(), 'object' in data ? data.object : undefined),
  );
  const problem = touched ? targetProblem(target) : null;
  // A refusal of the data (422 naming /data/… or /patch/…) belongs under the data, not under the endpoint.
  const refused =
    send.error instanceof ApiProblem &&
    (send.error.fieldError('/data') ?? send.error.fieldError('/patch')) !== undefined
      ? send.error.message
      : null;
  return (
    <form
      className="panel"
      aria-labelledby="test-title"
      noValidate
      onSubmit={(e) => {
        e.preventDefault();
        setTouched(true);
        // Cannot reject: useAction's run() catches: the error shows inline.
        if (!targetProblem(target) && !('error' in data)) void send.run();
      }}
    >
      <div className="panel-head">
        <h2 id="test-title">Send a test webhook</h2>
        <span className="faint">
          a realistic sample built from this sandbox&apos;s data, with production headers, signature and retries
        </span>
      </div>
      <div className="panel-body form-row">
        <TopicSelect value={topic} onChange={setTopic} />
        <Field label="Endpoint id or URL" error={problem ?? (refused ? null : send.error?.message)} className="grow">
          <input
            className="mono"
            list="endpoint-targets"
            value={target}
            onChange={(e) => setTarget(e.target.value)}
            placeholder="whe_… or http://localhost:3000/webhooks"
          />
        </Field>
        <datalist id="endpoint-targets">
          {endpoints.map((e) => (
            <option key={e.id} value={e.id}>
              {e.url}
            </option>
          ))}
        </datalist>
        <button type="submit" className="primary align-end" disabled={send.busy}>
          Send test webhook
        </button>
      </div>
      <div className="panel-body">
        <Field
          label="Your data (optional)"
          error={'error' in data ? data.error : refused}
          hint="A JSON object merged over the sample's data, e.g. {&quot;total&quot;: 10.5}; null removes a field. Checked against the topic's schema before sending."
        >
          <textarea
            className="mono"
            rows={3}
            value={dataText}
            onChange={(e) => setDataText(e.target.value)}
            placeholder='{"total": 10.5}'
            spellCheck={false}
          />
        </Field>
      </div>
    </form>
  );
}
