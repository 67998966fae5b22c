// The README's one-minute walkthrough and docs/api.md's commerce tour, run verbatim with bash and curl against
// a real engine (only the address changes); their own curl flags fail the script on an HTTP error.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { promisify } from 'node:util';
import { call, useEngine } from '../../helpers/engine.ts';
import { readDoc } from '../../helpers/docs.ts';
import { requireTool, tools } from '../../helpers/tools.ts';

const engine = useEngine();
const dir = mkdtempSync(join(tmpdir(), 'sandbay-walkthrough-'));
after(() => rmSync(dir, { recursive: true, force: true }));

/** The first ```sh block after a heading of a documentation file. */
function shellBlockAfter([file, heading]: Section): string {
  const text = readDoc(file);
  const start = text.indexOf(`\n${heading}\n`);
  assert.ok(start >= 0, `${file} has "${heading}"`);
  const block = /```sh\n([\s\S]*?)```/.exec(text.slice(start));
  assert.ok(block, `a sh block under "${heading}" in ${file}`);
  return block[1];
}

type Section = [file: string, heading: string];

async function eventually<T>(read: () => Promise<T>, done: (value: T) => boolean): Promise<T> {
  for (let i = 0; i < 100; i++) {
    const value = await read();
    if (done(value)) return value;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return read();
}

/** Runs documented blocks verbatim with bash, in order; returns stdout and the sandbox it created. */
async function runBlocks(...sections: Section[]): Promise<{ output: string; sandbox: { id: string }; token: string }> {
  const blocks = sections.map(shellBlockAfter);
  // As a reader copies them: errors are shown and stop the script, and every answer ends its line.
  // A command continued over lines (a trailing backslash) is checked whole.
  for (const command of blocks
    .join('\n')
    .replace(/\\\n\s*/g, ' ')
    .match(/\bcurl [^\n]*/g) ?? []) {
    assert.match(command, /^curl -sS --fail-with-body /, command);
    if (!/> \S+\.json/.test(command)) assert.match(command, /-w '\\n'/, command);
  }
  const script = ['set -euo pipefail', ...blocks].join('\n').replaceAll('http://127.0.0.1:4400', engine.url);
  // Asynchronous: the engine answering curl runs on this very event loop.
  requireTool(tools.curl);
  const { stdout: output } = await promisify(execFile)(requireTool(tools.bash), ['-c', script], {
    cwd: dir,
    encoding: 'utf8',
    timeout: 60_000,
  });
  for (const line of output
    .trimEnd()
    .split('\n')
    .filter((l) => l.startsWith('{')))
    assert.doesNotThrow(() => JSON.parse(line), line.slice(0, 80));
  const created = JSON.parse(readFileSync(join(dir, 'sandbox.json'), 'utf8'));
  return { output, sandbox: created.sandbox, token: created.credentials.accessToken };
}

/** Step 3's order and test webhook both reach the sandbox's own catcher demo of step 2, signed and answered 200. */
async function assertDelivered(run: { sandbox: { id: string }; token: string }): Promise<void> {
  const { token } = run;
  const deliveries = await eventually(
    () => call(engine.url, '/api/v1/webhooks/deliveries', { token }),
    (res) => res.body.data.filter((d: { status: string }) => d.status === 'succeeded').length >= 2,
  );
  const succeeded = deliveries.body.data.filter((d: { status: string }) => d.status === 'succeeded');
  const topics = succeeded.map((d: { topic: string }) => d.topic);
  assert.ok(topics.includes('order.placed') && topics.includes('payment.captured'), `delivered: ${topics}`);
  const catcher = await call(engine.url, '/api/v1/catchers/demo', { token });
  assert.equal(catcher.body.url, `${engine.url}/catch/${run.sandbox.id}/demo`);
  const caught = await call(engine.url, '/api/v1/catchers/demo/requests', { token });
  assert.ok(
    caught.body.data.length >= 2 &&
      caught.body.data.every((r: { verification: { verified: boolean } }) => r.verification.verified),
  );
  const ids = new Set(succeeded.map((d: { id: string }) => d.id));
  assert.ok(
    caught.body.data.every((r: { verification: { deliveryId: string } }) => ids.has(r.verification.deliveryId)),
    "only this sandbox's deliveries",
  );
}

const walkthrough: Section = ['README.md', '## One minute: token → endpoint → delivery → inspector'];
const tour: Section = ['docs/api.md', '## Commerce tour'];

test('the README walkthrough and the commerce tour of docs/api.md run as written and do what they say', async () => {
  const run = await runBlocks(walkthrough, tour);
  assert.match(
    run.output,
    /^\{"access_token":"sat_[^\n]*\}$/m,
    'the OAuth simulator issued a token, on a line of its own',
  );
  assert.ok(
    run.output.includes(`${engine.url}/sandboxes/${run.sandbox.id}/deliveries`),
    'the inspector link is printed',
  );
  await assertDelivered(run);

  // The tour's calls each emit the topic its comment names.
  const events = await call(engine.url, '/api/v1/events?limit=100', { token: run.token });
  const emitted = new Set(events.body.data.map((e: { topic: string }) => e.topic));
  for (const topic of [
    'product.created',
    'approval.request.created',
    'quote.converted',
    'vendor.approved',
    'payout.paid',
    'impersonation.started',
  ]) {
    assert.ok(emitted.has(topic), `${topic} among ${[...emitted].join(', ')}`);
  }
});

test('the walkthrough run a second time (a second sandbox, the same catcher name) works exactly as the first', async () => {
  const first = await runBlocks(walkthrough);
  const second = await runBlocks(walkthrough);
  assert.notEqual(second.sandbox.id, first.sandbox.id);
  await assertDelivered(first);
  await assertDelivered(second);
});
