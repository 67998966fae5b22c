// Live streams per sandbox are capped (issue 28: one token could hold 400): the 21st stream of a sandbox
// on an engine is 429 too_many_streams with Retry-After, another sandbox is unaffected, and a stream
// that closes gives its place back.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { call, createSandbox, problem, useEngine, type TestSandbox } from '../../helpers/engine.ts';
import { streamsPerSandbox } from '../../../src/server/routes/events.ts';

const engine = useEngine();

/** Opens the sandbox's live stream: its status once the headers arrive, and how to close it. */
async function openStream(sb: TestSandbox) {
  const abort = new AbortController();
  const res = await fetch(`${engine.url}/api/v1/events/stream`, {
    headers: { authorization: `Bearer ${sb.token}` },
    signal: abort.signal,
  });
  return {
    status: res.status,
    close: () => {
      abort.abort();
      void res.body?.cancel().catch(() => {});
    },
  };
}

test(`a sandbox holds at most ${streamsPerSandbox} live streams; the next is 429 with Retry-After, until one closes`, async () => {
  const sb = await createSandbox(engine.url);
  const other = await createSandbox(engine.url);
  const open = [];
  for (let i = 0; i < streamsPerSandbox; i++) open.push(await openStream(sb));
  try {
    assert.deepEqual(
      open.map((s) => s.status),
      open.map(() => 200),
    );
    const refused = await call(engine.url, '/api/v1/events/stream', { token: sb.token });
    problem(refused, 429, 'too_many_streams');
    assert.equal(refused.headers.get('retry-after'), '5');
    const elsewhere = await openStream(other);
    assert.equal(elsewhere.status, 200, "another sandbox's streams are its own");
    elsewhere.close();

    open.shift()!.close();
    // The engine frees the place when it sees the socket close: try until it has (no timing assumed).
    let again = await openStream(sb);
    while (again.status === 429) {
      again.close();
      again = await openStream(sb);
    }
    assert.equal(again.status, 200);
    open.push(again);
  } finally {
    for (const s of open) s.close();
  }
});
