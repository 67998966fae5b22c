// Standard Webhooks receivers for the receiver-check tests (SPEC §11): one correct, and each broken one
// with a mistake real receivers make. They verify with node:crypto directly, as hand-written ones do.
import { createHmac, createPublicKey, timingSafeEqual, verify } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export type StandardFlaw =
  | 'utf8-key'
  | 'undecoded-key'
  | 'no-id'
  | 'v1a-as-hmac'
  | 'skips-timestamp'
  | 'first-signature-only'
  | 'processes-duplicates'
  | 'ignores-signature-when-absent';

export interface StandardTestReceiver {
  url: string;
  effectsUrl: string;
  close(): Promise<void>;
}

/** Whether the request verifies with `key` (whsec_ for v1, whpk_ for v1a), with the receiver's flaws. */
function verified(flaws: Set<StandardFlaw>, key: string, req: IncomingMessage, body: Buffer): boolean {
  const id = String(req.headers['webhook-id'] ?? '');
  const t = String(req.headers['webhook-timestamp'] ?? '');
  const header = req.headers['webhook-signature'];
  if (header === undefined && flaws.has('ignores-signature-when-absent')) return true;
  let signatures = String(header ?? '')
    .split(' ')
    .map((s) => s.split(','))
    .filter(([, v]) => v);
  if (!id || !/^\d+$/.test(t) || signatures.length === 0) return false;
  if (flaws.has('first-signature-only')) signatures = signatures.slice(0, 1);
  const signed = Buffer.concat([Buffer.from(flaws.has('no-id') ? `${t}.` : `${id}.${t}.`), body]);
  // v1a-as-hmac: holds the endpoint's whsec_ secret and compares every signature, v1a too, with an HMAC of it.
  const ok = key.startsWith('whpk_')
    ? signatures.some(
        ([version, value]) =>
          version === 'v1a' &&
          verify(
            null,
            signed,
            createPublicKey({
              key: { kty: 'OKP', crv: 'Ed25519', x: Buffer.from(key.slice(5), 'base64').toString('base64url') },
              format: 'jwk',
            }),
            Buffer.from(value, 'base64'),
          ),
      )
    : signatures.some(([version, value]) => {
        const hmacKey = flaws.has('utf8-key')
          ? Buffer.from(key, 'utf8')
          : flaws.has('undecoded-key')
            ? Buffer.from(key.replace(/^whsec_/, ''), 'utf8')
            : Buffer.from(key.replace(/^whsec_/, ''), 'base64');
        const expected = Buffer.from(createHmac('sha256', hmacKey).update(signed).digest('base64'));
        return (
          (version === 'v1' || flaws.has('v1a-as-hmac')) &&
          value.length === expected.length &&
          timingSafeEqual(Buffer.from(value), expected)
        );
      });
  return ok && (flaws.has('skips-timestamp') || Math.abs(Date.now() / 1000 - Number(t)) <= 300);
}

/** Starts a Standard Webhooks receiver verifying with `key` (a function: known once the endpoint exists). */
export async function startStandardReceiver(
  keyOf: () => string,
  ...flawList: StandardFlaw[]
): Promise<StandardTestReceiver> {
  const flaws = new Set(flawList);
  const seen = new Set<string>();
  let processed = 0;
  const handle = (req: IncomingMessage, body: Buffer, res: ServerResponse) => {
    if (req.method === 'GET' && req.url === '/effects')
      return void res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ count: processed }));
    if (!verified(flaws, keyOf(), req, body)) return void res.writeHead(400).end('invalid signature');
    const id = String(req.headers['webhook-id']);
    const event = JSON.parse(body.toString('utf8')) as { type: string };
    if (flaws.has('processes-duplicates') || !seen.has(id)) {
      seen.add(id);
      if (event.type === 'order.placed' || event.type === 'order.cancelled') processed++;
    }
    res.writeHead(200, { 'content-type': 'text/plain' }).end('ok');
  };
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      try {
        handle(req, Buffer.concat(chunks), res);
      } catch (err) {
        res.writeHead(500).end(String((err as Error).message));
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url: `${base}/hook`,
    effectsUrl: `${base}/effects`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
