import { connect, createServer, type AddressInfo, type Server, type Socket } from 'node:net';

/**
 * A loopback TCP proxy in front of PostgreSQL that can turn one connection into a black hole: from then on
 * nothing passes either way and neither side hears a close (a moved virtual IP, a dropped NAT entry).
 * Connections are named by the proxy's own port towards the server, which pg_stat_activity shows as
 * client_port, so a test picks one session (the engine's LISTEN connection) by what the server says.
 */
export class BlackHoleProxy {
  private server?: Server;
  private readonly pairs = new Map<number, [client: Socket, upstream: Socket]>();

  constructor(
    private readonly targetHost: string,
    private readonly targetPort: number,
  ) {}

  /** Starts listening on loopback; resolves to its port. */
  async start(): Promise<number> {
    this.server = createServer((client) => {
      const upstream = connect(this.targetPort, this.targetHost);
      for (const s of [client, upstream]) s.on('error', () => {});
      upstream.once('connect', () => this.pairs.set(upstream.localPort!, [client, upstream]));
      client.pipe(upstream).pipe(client);
      client.on('close', () => upstream.destroy());
      upstream.on('close', () => client.destroy());
    });
    await new Promise<void>((r) => this.server!.listen(0, '127.0.0.1', () => r()));
    return (this.server.address() as AddressInfo).port;
  }

  /** Whether `upstreamPort` is one of this proxy's connections to the server. */
  carries(upstreamPort: number): boolean {
    return this.pairs.has(upstreamPort);
  }

  /** The connection whose server-side port is `upstreamPort` stops passing anything, and stays open. */
  blackHole(upstreamPort: number): void {
    const pair = this.pairs.get(upstreamPort);
    if (!pair) throw new Error(`no connection through the proxy from port ${upstreamPort}`);
    const [client, upstream] = pair;
    client.unpipe(upstream);
    upstream.unpipe(client);
    client.pause();
    upstream.pause();
    // Silent both ways: the engine closing its end tells the server nothing, as across a dead path.
    client.removeAllListeners('close');
    upstream.removeAllListeners('close');
  }

  async close(): Promise<void> {
    for (const [client, upstream] of this.pairs.values()) {
      client.destroy();
      upstream.destroy();
    }
    await new Promise<void>((r) => this.server?.close(() => r()) ?? r());
  }
}
