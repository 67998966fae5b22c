import { createServer, connect, type Server, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';

/**
 * A loopback TCP proxy in front of the engine that can drop every connection and refuse
 * new ones for a while: a network failure, at the one edge we fake.
 */
export class CuttingProxy {
  private server?: Server;
  private readonly sockets = new Set<Socket>();
  private down = false;

  constructor(private readonly targetPort: number) {}

  async start(): Promise<string> {
    this.server = createServer((client) => {
      if (this.down) return void client.destroy();
      const upstream = connect(this.targetPort, '127.0.0.1');
      for (const s of [client, upstream]) {
        this.sockets.add(s);
        s.on('close', () => this.sockets.delete(s));
        s.on('error', () => {});
      }
      client.pipe(upstream).pipe(client);
      client.on('close', () => upstream.destroy());
      upstream.on('close', () => client.destroy());
    });
    await new Promise<void>((r) => this.server!.listen(0, '127.0.0.1', () => r()));
    return `http://127.0.0.1:${(this.server!.address() as AddressInfo).port}`;
  }

  /** Drops every open connection and refuses new ones until `restore()`. */
  cut(): void {
    this.down = true;
    for (const s of this.sockets) s.destroy();
  }

  restore(): void {
    this.down = false;
  }

  async close(): Promise<void> {
    this.cut();
    await new Promise<void>((r) => this.server?.close(() => r()) ?? r());
  }
}
