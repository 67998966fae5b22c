import { createServer as createHttpServer } from 'node:http';
import { createServer, type AddressInfo } from 'node:net';
import { test } from 'node:test';
import { createSandbox, useEngine } from '../helpers/engine.ts';
import { assertOneLineFailure, assertOneLineFailures, runCli } from '../helpers/cli.ts';

const engine = useEngine();

/** A loopback port with nothing listening on it. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((r) => server.close(() => r()));
  return port;
}

test('an unreachable Sandbay is one line that says how to start it', async () => {
  const url = `http://127.0.0.1:${await closedPort()}`;
  const unreachable = new RegExp(`cannot reach Sandbay at ${url} — is it running\\? \\(sandbay serve\\)$`);
  await assertOneLineFailures([
    ...[
      ['deliveries'],
      ['trigger', 'order.placed', '--to', 'http://x.test'],
      ['dlq', 'list'],
      ['clock', 'advance', '1h'],
      ['token', '--new'],
    ].map((args): [string[], RegExp] => [[...args, '--url', url, '--token', 't'], unreachable]),
    [['deliveries'], /cannot reach Sandbay/, { env: { SANDBAY_URL: url, SANDBAY_TOKEN: 't' } }],
  ]);
});

test("a bad, missing or admin token without a sandbox is the API's reason in one line", async () => {
  await assertOneLineFailures([
    [
      ['deliveries', '--url', engine.url, '--token', 'sat_bad'],
      /^sandbay: The access token is not valid\. \(invalid_token\)$/,
    ],
    [['deliveries', '--url', engine.url], /^sandbay: no token: pass --token TOKEN or set SANDBAY_TOKEN/],
    [['deliveries', '--url', engine.url, '--token', engine.running.adminKey!], /name a sandbox: --sandbox ID/],
    [['deliveries', '--url', engine.url, '--token', engine.running.adminKey!, '--sandbox', 'sbx_nope'], /not_found/],
  ]);
});

test('an unknown topic, a bad URL and a usage error are one line each', async () => {
  const sb = await createSandbox(engine.url);
  const as = ['--url', engine.url, '--token', sb.token];
  await assertOneLineFailures([
    [
      ['trigger', 'order.shipped', '--to', 'http://127.0.0.1:9/x', ...as],
      /Unknown topic order\.shipped.*\(unknown_topic\)$/,
    ],
    [['deliveries', '--topic', 'order.shipped', ...as], /unknown_topic/],
    [['trigger', 'order.placed', '--to', 'not a url', ...as], /validation_failed/],
    [['deliveries', '--url', 'not a url', '--token', 't'], /^sandbay: not a URL: not a url$/],
    [['trigger', 'order.placed', ...as], /required option '--to <target>' not specified \(--help for usage\)$/],
    [['frobnicate'], /unknown command 'frobnicate' \(--help for usage\)$/],
  ]);
});

test('a typo gets a "did you mean": a topic names the CLI verb that lists them, a command or option its right spelling', async () => {
  const sb = await createSandbox(engine.url);
  const as = ['--url', engine.url, '--token', sb.token];
  await assertOneLineFailures([
    [
      ['trigger', 'order.plcaed', '--to', 'http://127.0.0.1:9/x', ...as],
      /^sandbay: Unknown topic order\.plcaed\. Did you mean order\.placed\? `sandbay topics` lists all 33\. \(unknown_topic\)$/,
    ],
    [
      ['deliveries', '--topic', 'paymnet.captured', ...as],
      /Did you mean payment\.captured\? `sandbay topics` lists all 33/,
    ],
    // By meaning too: another platform's word for a topic finds Sandbay's.
    [
      ['trigger', 'order.create', '--to', 'http://127.0.0.1:9/x', ...as],
      /^sandbay: Unknown topic order\.create\. Did you mean order\.placed\? `sandbay topics` lists all 33\. \(unknown_topic\)$/,
    ],
    // And an object Sandbay reports under another subject, by its name: refunds are payment.refunded.
    [
      ['trigger', 'refund.create', '--to', 'http://127.0.0.1:9/x', ...as],
      /^sandbay: Unknown topic refund\.create\. Did you mean payment\.refunded\? `sandbay topics` lists all 33\. \(unknown_topic\)$/,
    ],
    [['dlq', 'replay', '--all', '--topic', 'payment.succeeded', ...as], /Did you mean payment\.captured\?/],
    [['trigerr', 'order.placed'], /^sandbay: unknown command 'trigerr' — did you mean trigger\? \(--help for usage\)$/],
    [['dlq', 'replya'], /^sandbay: unknown command 'replya' — did you mean replay\? \(--help for usage\)$/],
    [
      ['deliveries', '--stauts', 'dead'],
      /^sandbay: unknown option '--stauts' — did you mean --status\? \(--help for usage\)$/,
    ],
  ]);
});

test('a server that is not Sandbay is named as such', async () => {
  const server = createHttpServer((_req, res) => res.writeHead(200, { 'content-type': 'text/html' }).end('<html>'));
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  try {
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    assertOneLineFailure(
      await runCli(['deliveries', '--url', url, '--token', 't']),
      /answered HTTP 200 with text\/html — is it a Sandbay\?$/,
    );
  } finally {
    server.close();
  }
});
