import { useState } from 'react';
import type { TestWebhookResult } from '../../../shared/api-types.ts';
import { categories, topicCategories } from '../../../shared/topics.ts';
import { api } from '../../api/client.ts';
import { Field } from '../../components/Field.tsx';
import { useAction } from '../../components/hooks.ts';
import { pathOf } from '../../router.ts';
import { useApp } from '../../store/app.ts';
import { useEndpoints } from '../../store/endpoints.ts';
import { targetProblem } from './validate.ts';

/** A labelled select of the 33 topics, grouped by category. */
export function TopicSelect({ value, onChange, label = 'Topic' }: { value: string; onChange: (t: string) => void; label?: string }) {
  return (
    <Field label={label}>
      <select value={value} onChange={(e) => onChange(e.target.value)}>
        {categories.map((c) => (
          <optgroup key={c} label={c}>{topicCategories[c].map((t) => <option key={t} value={t}>{t}</option>)}</optgroup>
        ))}
      </select>
    </Field>
  );
}

/** Sends a realistic sample of a topic to an endpoint (or any URL) and links to the delivery. */
export async function sendTestWebhook(sandboxId: string, topic: string, endpoint: string): Promise<string> {
  const res = await api.post<TestWebhookResult>('/api/v1/webhooks/test', { topic, endpoint });
  useApp.getState().toast('success', `Test ${topic} queued.`, { href: pathOf('deliveries', sandboxId, res.deliveryId), label: 'Open delivery' });
  return res.deliveryId;
}

/** "Send a test webhook": topic plus a registered endpoint or a URL. */
export function TestWebhookForm({ sandboxId }: { sandboxId: string }) {
  const endpoints = useEndpoints((s) => s.endpoints);
  const [topic, setTopic] = useState('order.placed');
  const [target, setTarget] = useState('');
  const [touched, setTouched] = useState(false);
  const send = useAction(() => sendTestWebhook(sandboxId, topic, target.trim()));
  const problem = touched ? targetProblem(target) : null;
  return (
    <form className="panel" aria-labelledby="test-title" noValidate onSubmit={(e) => {
      e.preventDefault();
      setTouched(true);
      if (!targetProblem(target)) void send.run();
    }}>
      <div className="panel-head"><h2 id="test-title">Send a test webhook</h2><span className="faint">a realistic sample built from this sandbox&apos;s data, with production headers, signature and retries</span></div>
      <div className="panel-body form-row">
        <TopicSelect value={topic} onChange={setTopic} />
        <Field label="Endpoint id or URL" error={problem ?? send.error?.message} className="grow">
          <input className="mono" list="endpoint-targets" value={target} onChange={(e) => setTarget(e.target.value)} placeholder="whe_… or http://localhost:3000/webhooks" />
        </Field>
        <datalist id="endpoint-targets">
          {endpoints.map((e) => <option key={e.id} value={e.id}>{e.url}</option>)}
        </datalist>
        <button type="submit" className="primary align-end" disabled={send.busy}>Send test webhook</button>
      </div>
    </form>
  );
}
