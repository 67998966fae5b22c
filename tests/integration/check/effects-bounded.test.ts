// An effects URL is read at most 1 KiB deep: a receiver (or anything an effects URL names) answering
// 400 MB must not grow the engine's memory, which once took one check from 120 MB to 1.4 GB.
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, test } from 'node:test';
import { startTestReceiver } from '../../helpers/check-receivers.ts';
import { createSandbox, useEngine } from '../../helpers/engine.ts';
import { caseOf, runCheck } from './helpers.ts';

const engine = useEngine();
const floodBytes = 400 * 1024 * 1024;
let flood: Server;
let sent = 0;
let floodUrl = '';

// A loopback server streaming zeros as fast as they are read, until 400 MB or the reader hangs up.
before(async () => {
  const chunk = Buffer.alloc(256 * 1024);
  flood = createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    const pump = () => {
      while (sent < floodBytes && !res.destroyed) {
        sent += chunk.length;
        if (!res.write(chunk)) return void res.once('drain', pump);
      }
      res.end();
    };
    pump();
  });
  await new Promise<void>((r) => flood.listen(0, '127.0.0.1', () => r()));
  floodUrl = `http://127.0.0.1:${(flood.address() as AddressInfo).port}/count`;
});
after(
  () =>
    new Promise<void>((r) => {
      flood.closeAllConnections();
      flood.close(() => r());
    }),
);

test('an effects URL answering 400 MB is cut off after 1 KiB: the check says so and RSS stays within 50 MB', async (t) => {
  const secret = 'whsec_effects_flood_secret_0123456789';
  const receiver = await startTestReceiver(secret);
  try {
    const sb = await createSandbox(engine.url);
    await runCheck(sb, { url: receiver.url, secret }); // warm-up: the battery's own allocations come first
    const before = process.memoryUsage().rss;
    const run = await runCheck(sb, { url: receiver.url, secret, effectsUrl: floodUrl });
    const grown = process.memoryUsage().rss - before;
    t.diagnostic(
      `RSS ${Math.round(before / 2 ** 20)} MB before, ${Math.round((before + grown) / 2 ** 20)} MB after; ${Math.round(sent / 2 ** 20)} MB of the 400 MB were sent`,
    );
    const duplicate = caseOf(run, 'duplicate');
    assert.equal(duplicate.ok, false);
    assert.match(duplicate.cause, /answered more than 1024 bytes; it should answer a count/);
    assert.ok(grown < 50 * 1024 * 1024, `RSS grew by ${Math.round(grown / 1024 / 1024)} MB`);
    assert.ok(sent < floodBytes / 10, `the answer was not read on (${Math.round(sent / 1024 / 1024)} MB were sent)`);
  } finally {
    await receiver.close();
  }
});
