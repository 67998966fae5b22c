// Receivers written for the receiver-check tests: one correct, and each broken one with a
// mistake real receivers make. They verify with node:crypto directly (not the project's
// verifier), the way hand-written receivers do.
import { createHmac, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export type Flaw =
  | 'reserialises-json' | 'skips-timestamp' | 'first-v1-only' | 'fails-unknown-topic' | 'processes-duplicates' | 'latin1-body'
  | 'redirects' | 'strips-prefix';

export interface TestReceiver {
  url: string;
  /** GET: the count of processed events, as {"count": n}. */
  effectsUrl: string;
  processed: number;
  close(): Promise<void>;
}

const handled = new Set(['order.placed', 'order.cancelled']);

function signatureOk(flaws: Set<Flaw>, secret: string, header: string | undefined, body: string): boolean {
  const parts = (header ?? '').split(',').map((p) => p.trim().split('='));
  const t = parts.find(([k]) => k === 't')?.[1] ?? '';
  let v1s = parts.filter(([k, v]) => k === 'v1' && v).map(([, v]) => v);
  if (!/^\d+$/.test(t) || v1s.length === 0) return false;
  if (flaws.has('first-v1-only')) v1s = v1s.slice(0, 1);
  const key = flaws.has('strips-prefix') ? secret.replace(/^whsec_/, '') : secret;
  const expected = Buffer.from(createHmac('sha256', key).update(`${t}.${body}`, 'utf8').digest('hex'));
  if (!v1s.some((v) => v.length === expected.length && timingSafeEqual(Buffer.from(v), expected))) return false;
  return flaws.has('skips-timestamp') || Math.abs(Date.now() / 1000 - Number(t)) <= 300;
}

/** Starts a receiver on a free loopback port; `flaws` empty is a correct receiver. */
export async function startTestReceiver(secret: string, ...flawList: Flaw[]): Promise<TestReceiver> {
  const flaws = new Set(flawList);
  const seen = new Set<string>();
  const state = { processed: 0 };
  const handle = (req: IncomingMessage, raw: Buffer, res: ServerResponse) => {
    if (req.method === 'GET' && req.url === '/effects') return void res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ count: state.processed }));
    let body = flaws.has('latin1-body') ? raw.toString('latin1') : raw.toString('utf8');
    if (flaws.has('reserialises-json')) {
      try {
        body = JSON.stringify(JSON.parse(body));
      } catch {
        return void res.writeHead(400).end('bad json');
      }
    }
    if (!signatureOk(flaws, secret, req.headers['x-service-signature'] as string | undefined, body)) return void res.writeHead(400).end('invalid signature');
    const event = JSON.parse(body) as { topic: string; deliveryId: string };
    if (!handled.has(event.topic) && flaws.has('fails-unknown-topic')) throw new Error(`no handler for ${event.topic}`);
    if (flaws.has('processes-duplicates') || !seen.has(event.deliveryId)) {
      seen.add(event.deliveryId);
      if (handled.has(event.topic)) state.processed++;
    }
    if (flaws.has('redirects')) return void res.writeHead(303, { location: '/thanks' }).end();
    res.writeHead(200, { 'content-type': 'text/plain' }).end('ok');
  };
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      try {
        handle(req, Buffer.concat(chunks), res);
      } catch (err) {
        res.writeHead(500, { 'content-type': 'text/plain' }).end(String((err as Error).message));
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url: `${base}/hook`, effectsUrl: `${base}/effects`,
    get processed() {
      return state.processed;
    },
    close: () => new Promise<void>((resolve) => {
      server.close(() => resolve());
      server.closeAllConnections();
    }),
  };
}
