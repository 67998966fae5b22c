import { createHmac } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { after } from 'node:test';

export interface Received {
  path: string;
  headers: IncomingHttpHeaders;
  /** The raw body as received. */
  body: string;
  /** performance.now() when the body had arrived. */
  at: number;
}

/** How the receiver answers; change it between attempts. */
export type Behaviour =
  | { kind: 'status'; status: number; body?: string; headers?: Record<string, string> }
  | { kind: 'hang' }
  | { kind: 'reset' }
  | { kind: 'flood'; bytes: number };

/**
 * A real loopback HTTP receiver for webhook tests: records every request and answers as
 * told (a status, a hang, a connection reset, or a huge streamed body).
 */
export class Receiver {
  readonly received: Received[] = [];
  behaviour: Behaviour = { kind: 'status', status: 200, body: 'ok' };
  private server?: Server;
  private readonly sockets = new Set<Socket>();
  private waiters: (() => void)[] = [];
  floodBytesSent = 0;

  private host = '127.0.0.1';

  /** Listens on a loopback address of its own choosing (127.0.0.1, or ::1 for IPv6 tests). */
  async start(host: '127.0.0.1' | '::1' = '127.0.0.1'): Promise<this> {
    this.host = host;
    this.server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        this.received.push({
          path: req.url ?? '/',
          headers: req.headers,
          body: Buffer.concat(chunks).toString('utf8'),
          at: performance.now(),
        });
        this.respond(res);
        for (const w of this.waiters.splice(0)) w();
      });
    });
    this.server.on('connection', (s) => {
      this.sockets.add(s);
      s.on('close', () => this.sockets.delete(s));
    });
    await new Promise<void>((r) => this.server!.listen(0, host, () => r()));
    return this;
  }

  get port(): number {
    return (this.server!.address() as AddressInfo).port;
  }

  get url(): string {
    return `http://${this.host.includes(':') ? `[${this.host}]` : this.host}:${this.port}/hook`;
  }

  /** Resolves once `count` requests have arrived (or rejects after `timeoutMs`). */
  async waitFor(count: number, timeoutMs = 10_000): Promise<Received[]> {
    const deadline = Date.now() + timeoutMs;
    while (this.received.length < count) {
      const left = deadline - Date.now();
      if (left <= 0) throw new Error(`receiver got ${this.received.length} of ${count} requests`);
      await new Promise<void>((resolve) => {
        const t = setTimeout(resolve, left);
        this.waiters.push(() => {
          clearTimeout(t);
          resolve();
        });
      });
    }
    return this.received.slice(0, count);
  }

  async close(): Promise<void> {
    for (const s of this.sockets) s.destroy();
    await new Promise<void>((r) => this.server?.close(() => r()) ?? r());
  }

  private respond(res: ServerResponse): void {
    const b = this.behaviour;
    if (b.kind === 'status') {
      res.writeHead(b.status, { 'content-type': 'text/plain', ...b.headers });
      res.end(b.body ?? '');
    } else if (b.kind === 'reset') {
      res.socket?.destroy();
    } else if (b.kind === 'flood') {
      res.writeHead(200, { 'content-type': 'application/octet-stream' });
      const chunk = Buffer.alloc(64 * 1024, 'x');
      const pump = () => {
        while (this.floodBytesSent < b.bytes) {
          this.floodBytesSent += chunk.length;
          if (!res.write(chunk)) return void res.once('drain', pump);
        }
        res.end();
      };
      res.on('close', () => undefined);
      pump();
    }
    // hang: never answer
  }
}

/** An independent HMAC check (node:crypto only, not the project's verifier). */
export function independentlyVerify(header: string, body: string, secret: string): boolean {
  const t = /(?:^|,)t=(\d+)/.exec(header)?.[1];
  const expected = createHmac('sha256', Buffer.from(secret, 'utf8')).update(`${t}.${body}`).digest('hex');
  return header.split(',').some((part) => part === `v1=${expected}`);
}

/**
 * Receivers a test file starts as it goes, each answering `status` at first, all closed after the file's tests.
 * Use at top level: `const receiver = useReceivers();` then `const rx = await receiver(500);`.
 */
export function useReceivers(): (status: number) => Promise<Receiver> {
  const receivers: Receiver[] = [];
  after(async () => {
    for (const rx of receivers) await rx.close();
  });
  return async (status) => {
    const rx = await new Receiver().start();
    rx.behaviour = { kind: 'status', status };
    receivers.push(rx);
    return rx;
  };
}
