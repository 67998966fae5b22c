import { connect, type Socket } from 'node:net';
import type { SoakMetrics } from './metrics.ts';

export interface StreamTarget {
  url: string;
  token: string;
}

/**
 * The soak's live-stream clients: readers that parse every message and reconnect with
 * Last-Event-ID, and clients that never read their socket (the engine must drop those
 * rather than buffer for them without end). Both reconnect until stopped.
 */
export class SseClients {
  messages = 0;
  resets = 0;
  reconnects = 0;
  private stopped = false;
  private readonly aborts = new Set<AbortController>();
  private readonly sockets = new Set<Socket>();

  constructor(private readonly metrics: SoakMetrics) {}

  startReader(target: StreamTarget): void {
    void this.read(target, undefined);
  }

  startNonReader(target: StreamTarget): void {
    const { hostname, port } = new URL(target.url);
    const socket = connect(Number(port), hostname);
    this.sockets.add(socket);
    socket.on('error', () => {});
    socket.once('data', () => socket.pause());
    socket.on('close', () => {
      this.sockets.delete(socket);
      if (this.stopped) return;
      this.reconnects++;
      setTimeout(() => this.startNonReader(target), 1000);
    });
    socket.write(
      `GET /api/v1/events/stream HTTP/1.1\r\nHost: ${hostname}:${port}\r\nAuthorization: Bearer ${target.token}\r\n\r\n`,
    );
  }

  get open(): number {
    return this.aborts.size + this.sockets.size;
  }

  stop(): void {
    this.stopped = true;
    for (const a of this.aborts) a.abort();
    for (const s of this.sockets) s.destroy();
  }

  private async read(target: StreamTarget, lastEventId: string | undefined): Promise<void> {
    const abort = new AbortController();
    this.aborts.add(abort);
    let last = lastEventId;
    try {
      const headers: Record<string, string> = { authorization: `Bearer ${target.token}`, accept: 'text/event-stream' };
      if (last) headers['last-event-id'] = last;
      const res = await fetch(`${target.url}/api/v1/events/stream`, { headers, signal: abort.signal });
      if (!res.ok || !res.body) throw new Error(`HTTP ${res.status}`);
      const decoder = new TextDecoder();
      let buffer = '';
      for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
        buffer += decoder.decode(chunk, { stream: true });
        let end: number;
        while ((end = buffer.indexOf('\n\n')) >= 0) {
          const block = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          const id = /^id:\s*(.+)$/m.exec(block)?.[1];
          if (!id) continue;
          last = id;
          this.messages++;
          if (/^event:\s*reset$/m.test(block)) this.resets++;
        }
      }
    } catch (err) {
      if (!this.stopped) this.metrics.error(`sse reader: ${(err as Error).message.slice(0, 60)}`);
    } finally {
      this.aborts.delete(abort);
    }
    if (this.stopped) return;
    this.reconnects++;
    setTimeout(() => void this.read(target, last), 1000);
  }
}
