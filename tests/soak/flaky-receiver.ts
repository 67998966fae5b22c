import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

const errorPage = `soak says no\n${'x'.repeat(64 * 1024)}`;

/**
 * The soak's webhook receiver on loopback: answers 200, 500 and hangs in turn, so deliveries
 * succeed, retry and (five failures in a row) reach the DLQ. A hung request is held until the
 * engine gives up on it.
 */
export class FlakyReceiver {
  hits = 0;
  private turn = 0;
  private hangs = true;
  private server?: Server;
  private readonly held = new Set<ServerResponse>();
  private readonly sockets = new Set<Socket>();

  async start(): Promise<string> {
    this.server = createServer((req, res) => {
      req.resume();
      req.on('end', () => {
        this.hits++;
        const kind = this.turn++ % 3;
        if (kind === 0) res.writeHead(200, { 'content-type': 'text/plain' }).end('ok');
        // A large error page: the engine must keep only its first 4 KiB in the attempt record.
        else if (kind === 1) res.writeHead(500, { 'content-type': 'text/plain' }).end(errorPage);
        else if (!this.hangs) res.writeHead(503).end();
        else {
          this.held.add(res);
          res.on('close', () => this.held.delete(res));
        }
      });
    });
    this.server.on('connection', (socket) => {
      this.sockets.add(socket);
      socket.on('close', () => this.sockets.delete(socket));
    });
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/hooks`;
  }

  /** Requests held open right now (the engine's attempt timeout ends them). */
  get hanging(): number {
    return this.held.size;
  }

  /** Stops hanging (and answers what it holds with 503), so the run's last clock advances end soon. */
  calm(): void {
    this.hangs = false;
    for (const res of this.held) res.writeHead(503).end();
  }

  async close(): Promise<void> {
    for (const socket of this.sockets) socket.destroy();
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }
}
