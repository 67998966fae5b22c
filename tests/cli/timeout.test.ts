import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, test } from 'node:test';
import { assertOneLineFailure, runCli } from '../helpers/cli.ts';

// Servers that accept the connection and then never finish answering: a hung engine.
const servers: Server[] = [];
after(() => {
  for (const server of servers) {
    server.closeAllConnections();
    server.close();
  }
});

async function hungServer(handler: (res: import('node:http').ServerResponse) => void): Promise<string> {
  const server = createServer((_req, res) => handler(res));
  servers.push(server);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

test('a server that never answers fails the command after --timeout with one line naming it', async () => {
  const url = await hungServer(() => {});
  const started = Date.now();
  const result = await runCli(['deliveries', '--url', url, '--token', 't', '--timeout', '0.5']);
  assertOneLineFailure(
    result,
    new RegExp(
      `^sandbay: no answer from ${url} to GET /api/v1/webhooks/deliveries within 0\\.5 s — is Sandbay stuck\\? \\(--timeout SECONDS waits longer\\)$`,
    ),
  );
  assert.ok(Date.now() - started < 15_000, 'it gave up instead of hanging');
});

test('a server that sends its headers and then stalls is a timeout too; SANDBAY_TIMEOUT sets the default', async () => {
  const url = await hungServer((res) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.write('{"data":');
  });
  assertOneLineFailure(
    await runCli(['dlq', 'list', '--url', url, '--token', 't'], { env: { SANDBAY_TIMEOUT: '0.5' } }),
    /within 0\.5 s — is Sandbay stuck\?/,
  );
});

test('the live feed gives up on a stream that never opens', async () => {
  const url = await hungServer(() => {});
  assertOneLineFailure(
    await runCli(['listen', '--url', url, '--token', 't', '--timeout', '0.5']),
    /no answer from .* to GET \/api\/v1\/events\/stream within 0\.5 s/,
  );
});

test('a timeout that is not a positive number of seconds is a usage error', async () => {
  assertOneLineFailure(
    await runCli(['deliveries', '--url', 'http://127.0.0.1:9', '--token', 't', '--timeout', 'soon']),
    /^sandbay: --timeout takes seconds between 0 and 86400, not soon$/,
  );
});
