import assert from 'node:assert/strict';
import { connect, type Socket } from 'node:net';
import { test } from 'node:test';
import { createSandbox, useEngine } from '../../helpers/engine.ts';
import { SseClient } from '../../helpers/sse.ts';
import { maxUnsentBytesPerClient } from '../../../src/webhooks/delivery-stream.ts';

// A client that stops reading is dropped once its buffer has stayed full this long (SPEC's engine: 30 s).
const stallMs = 500;
const engine = useEngine({ streamStallMs: stallMs });
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Opens the stream over a raw socket and stops reading once the head arrived: a client that never reads. */
function openUnreadStream(url: string, token: string): Promise<{ socket: Socket; closed: Promise<void> }> {
  const { hostname, port } = new URL(url);
  const socket = connect(Number(port), hostname);
  const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
  socket.on('error', () => {});
  socket.write(
    `GET /api/v1/events/stream HTTP/1.1\r\nHost: ${hostname}:${port}\r\nAuthorization: Bearer ${token}\r\nAccept: text/event-stream\r\n\r\n`,
  );
  return new Promise((resolve, reject) => {
    socket.once('data', (head) => {
      if (!head.toString().startsWith('HTTP/1.1 200')) return reject(new Error(`stream refused: ${head}`));
      socket.pause();
      resolve({ socket, closed });
    });
  });
}

// Without a cap, every message for a client that stopped reading piles up in the engine's memory
// (Node's write buffer) for as long as the connection stays open: past the cap nothing more is written
// to it, and once it has stalled there it is dropped.
test('a stream client that stops reading is dropped once it stalls past the cap, and resumes or gets reset', async () => {
  const stream = engine.running.services.webhooks.stream;
  const sb = await createSandbox(engine.url);
  const { socket, closed } = await openUnreadStream(engine.url, sb.token);
  const before = stream.dropped;
  // A reader in the engine that keeps up: where the client stood when it stopped reading (what a
  // subscription made now may resume from), and how far the engine has read what was published.
  let read = 0;
  const pace = await stream.subscribe(sb.id, undefined, {
    send: (batch) => void (read += batch.length),
    unsentBytes: () => 0,
    drop: () => {},
  });
  const lastSeenId = pace.lastId;
  const padding = 'x'.repeat(2000);
  let published = 0;
  // Kernel socket buffers first fill (a few MB on loopback), then Node's; 64 MB is far past both plus the cap.
  // Each round waits for the engine to read it, and rounds are paced, so that the stall before the drop
  // does not publish past the resume limit (10,000 messages) unread.
  while (stream.dropped === before && published * padding.length < 64 * 1024 * 1024) {
    for (let i = 0; i < 100; i++, published++)
      stream.publish(sb.id, 'delivery.updated', { id: `dlv_${published}`, error: padding });
    for (const deadline = Date.now() + 10_000; read < published && Date.now() < deadline;) await sleep(10);
    await sleep(25);
  }
  pace.close();
  assert.equal(
    stream.dropped,
    before + 1,
    `dropped after ${published} messages (${maxUnsentBytesPerClient} bytes cap, ${stallMs} ms stalled)`,
  );
  socket.resume(); // reads what was already on its way, then sees the engine end the connection
  await closed;
  assert.equal(stream.subscriberCount, 0, 'the dropped client holds nothing in the hub');

  // Still kept: the reconnecting client gets everything it missed.
  const resumed = new SseClient(`${engine.url}/api/v1/events/stream`, {
    authorization: `Bearer ${sb.token}`,
    'last-event-id': lastSeenId,
  });
  await resumed.open();
  try {
    await resumed.waitFor((m) => m.data.id === `dlv_${published - 1}`, 10_000);
    assert.ok(resumed.messages.every((m) => m.event !== 'reset'));
  } finally {
    resumed.close();
  }

  // Once a message it missed was pruned (older than the resume window), the client must refetch.
  await engine.running.services.db.query('delete from stream_messages where tenant_id = $1 and seq = $2', [
    sb.id,
    Number(lastSeenId) + 1,
  ]);
  const behind = new SseClient(`${engine.url}/api/v1/events/stream`, {
    authorization: `Bearer ${sb.token}`,
    'last-event-id': lastSeenId,
  });
  await behind.open();
  try {
    const reset = await behind.waitFor((m) => m.event === 'reset');
    assert.equal(reset.data.reason, 'cannot_resume');
  } finally {
    behind.close();
  }
});
