import assert from 'node:assert/strict';
import { test } from 'node:test';
import { OtlpCollector } from '../helpers/otlp-collector.ts';
import { assertOneLineFailure, CliProcess, runCli } from '../helpers/cli.ts';

test('--otlp-endpoint that is not an http(s) URL is a usage error', async () => {
  assertOneLineFailure(
    await runCli(['serve', '--memory', '--port', '0', '--otlp-endpoint', 'localhost:4318']),
    /^sandbay: --otlp-endpoint must be an http\(s\) URL, e\.g\. http:\/\/localhost:4318, not localhost:4318$/,
  );
});

test('serve --otlp-endpoint exports a span per attempt to that collector', async (t) => {
  const collector = await new OtlpCollector().start();
  t.after(() => collector.close());
  const server = new CliProcess(['serve', '--memory', '--port', '0', '--quiet', '--otlp-endpoint', collector.url]);
  t.after(() => server.stop());
  const base = /(http:\/\/127\.0\.0\.1:\d+)/.exec(await server.waitForLine(/http:\/\/127\.0\.0\.1:\d+/))![1];
  const created = (await (await fetch(`${base}/api/v1/sandboxes`, { method: 'POST' })).json()) as any;
  const token = created.credentials.accessToken;
  // Port 9 of loopback: nothing listens, the attempt fails at once and its span says so.
  const sent = await fetch(`${base}/api/v1/webhooks/test`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ topic: 'order.placed', endpoint: 'http://127.0.0.1:9/hook' }),
  });
  const { deliveryId } = (await sent.json()) as { deliveryId: string };
  const [span] = await collector.waitFor((s) => s.attributes['sandbay.delivery.id'] === deliveryId, 1);
  assert.equal(span.name, 'webhook order.placed');
  assert.equal(span.status.code, 2, 'ERROR');
  assert.equal(span.status.message, 'connection refused');
});
