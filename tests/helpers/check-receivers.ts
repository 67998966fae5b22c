// Receivers written for the receiver-check tests: one correct, and each broken one with a
// mistake real receivers make. They verify with node:crypto directly (not the project's
// verifier), the way hand-written receivers do.
import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export type Flaw =
  | 'reserialises-json'
  | 'skips-timestamp'
  | 'first-v1-only'
  | 'fails-unknown-topic'
  | 'processes-duplicates'
  | 'latin1-body'
  | 'redirects'
  /** Serves /hook and redirects /hook/ to it (308), as Werkzeug's and Starlette's routers do. */
  | 'redirects-other-slash'
  | 'strips-prefix'
  | 'decodes-key'
  | 'rejects-everything'
  | 'fails-everything'
  | 'trims-body'
  | 'reads-first-64k'
  | 'limit-100kb'
  | 'secret-with-newline'
  /** Not a flaw: answers a failed verification with a Sandbay-Echo header of what it verified. */
  | 'echoes';

export interface TestReceiver {
  url: string;
  /** GET: the count of processed events, as {"count": n}. */
  effectsUrl: string;
  processed: number;
  close(): Promise<void>;
}

const handled = new Set(['order.placed', 'order.cancelled']);

function keyOf(flaws: Set<Flaw>, secret: string): string | Buffer {
  if (flaws.has('strips-prefix')) return secret.replace(/^whsec_/, '');
  if (flaws.has('decodes-key')) return Buffer.from(secret.replace(/^whsec_/, ''), 'base64');
  if (flaws.has('secret-with-newline')) return `${secret}\n`;
  return secret;
}

// What the receiver verified, the way the receivers docs show it: length, sha256, the v1 it computed, t, and the bytes.
function echo(flaws: Set<Flaw>, secret: string, header: string | undefined, body: string): string {
  const t = /(?:^|,)t=(\d+)/.exec(header ?? '')?.[1] ?? '0';
  const bytes = Buffer.from(body, 'utf8');
  const v1 = createHmac('sha256', keyOf(flaws, secret)).update(`${t}.`).update(bytes).digest('hex');
  return `length=${bytes.length},sha256=${createHash('sha256').update(bytes).digest('hex')},v1=${v1},t=${t},body=${bytes.toString('base64')}`;
}

function signatureOk(flaws: Set<Flaw>, secret: string, header: string | undefined, body: string): boolean {
  const parts = (header ?? '').split(',').map((p) => p.trim().split('='));
  const t = parts.find(([k]) => k === 't')?.[1] ?? '';
  let v1s = parts.filter(([k, v]) => k === 'v1' && v).map(([, v]) => v);
  if (!/^\d+$/.test(t) || v1s.length === 0) return false;
  if (flaws.has('first-v1-only')) v1s = v1s.slice(0, 1);
  const key = keyOf(flaws, secret);
  const expected = Buffer.from(createHmac('sha256', key).update(`${t}.${body}`, 'utf8').digest('hex'));
  if (!v1s.some((v) => v.length === expected.length && timingSafeEqual(Buffer.from(v), expected))) return false;
  return flaws.has('skips-timestamp') || Math.abs(Date.now() / 1000 - Number(t)) <= 300;
}

/**
 * Starts a receiver on a free loopback port; `flaws` empty is a correct receiver. A function gives the secret once it
 * is known.
 */
export async function startTestReceiver(secretOf: string | (() => string), ...flawList: Flaw[]): Promise<TestReceiver> {
  const flaws = new Set(flawList);
  const current = () => (typeof secretOf === 'string' ? secretOf : secretOf());
  const seen = new Set<string>();
  const state = { processed: 0 };
  const handle = (req: IncomingMessage, raw: Buffer, res: ServerResponse) => {
    if (req.method === 'GET' && req.url === '/effects')
      return void res
        .writeHead(200, { 'content-type': 'application/json' })
        .end(JSON.stringify({ count: state.processed }));
    if (flaws.has('redirects-other-slash') && req.url === '/hook/')
      return void res.writeHead(308, { location: '/hook' }).end();
    if (flaws.has('rejects-everything')) return void res.writeHead(400).end('rejected');
    if (flaws.has('fails-everything')) throw new Error('database is locked');
    if (flaws.has('limit-100kb') && raw.length > 100 * 1024)
      return void res.writeHead(413).end('request entity too large');
    let body = flaws.has('latin1-body')
      ? raw.toString('latin1')
      : raw.subarray(0, flaws.has('reads-first-64k') ? 65_536 : undefined).toString('utf8');
    if (flaws.has('trims-body')) body = body.trim();
    if (flaws.has('reserialises-json')) {
      try {
        body = JSON.stringify(JSON.parse(body));
      } catch {
        return void res.writeHead(400).end('bad json');
      }
    }
    const header = req.headers['x-service-signature'] as string | undefined;
    const secret = current();
    if (!signatureOk(flaws, secret, header, body)) {
      return void res
        .writeHead(400, flaws.has('echoes') ? { 'sandbay-echo': echo(flaws, secret, header, body) } : {})
        .end('invalid signature');
    }
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
    url: `${base}/hook`,
    effectsUrl: `${base}/effects`,
    get processed() {
      return state.processed;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
