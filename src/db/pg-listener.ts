import pgListen, { type Subscriber } from 'pg-listen';
import type { NotificationHandler } from './database.ts';

/** The retry delay after the LISTEN connection drops: quick at first, then every 5 s until the server is back. */
const retryDelay = (attempt: number) => Math.min(250 * 2 ** attempt, 5_000);

/**
 * The LISTEN connection's health (docs/team-mode.md, Faults). A connection can die without a word: a moved
 * virtual IP or a dropped NAT entry leaves the socket open and silent, and TCP would take ~15 minutes to
 * give up. So it carries a heartbeat, a round trip every `heartbeatMs` that must answer within
 * `heartbeatTimeoutMs` (also the bound on connecting and on every statement on it), plus TCP keepalive
 * after `keepAliveMs` of silence; a half-open connection is noticed within heartbeatMs + heartbeatTimeoutMs
 * (15 s, inside SPEC §9's 30), caches are bypassed from then on, and the connection is replaced.
 */
const listenHealth = { heartbeatMs: 10_000, heartbeatTimeoutMs: 5_000, keepAliveMs: 5_000 };

/**
 * One dedicated LISTEN connection per engine (pg-listen): it reconnects after a drop (a restarted server,
 * pg_terminate_backend, a network cut) and LISTENs again on every channel. Notifications sent while it
 * was away are lost — PostgreSQL keeps none — so `onLost` subscribers hear of the loss at once and
 * `onGap` subscribers, once it is back, resynchronise.
 */
export class PgListener {
  private readonly subscriber: Subscriber;
  private readonly handlers = new Map<string, Set<NotificationHandler>>();
  private readonly gapHandlers = new Set<() => void>();
  private readonly lostHandlers = new Set<() => void>();
  private connecting?: Promise<void>;
  private closed = false;

  constructor(
    connectionString: string,
    private readonly log: (message: string) => void,
  ) {
    // pg-listen is CommonJS with an `exports.default`.
    this.subscriber = pgListen.default(
      {
        connectionString,
        application_name: 'sandbay-listen',
        keepAlive: true,
        keepAliveInitialDelayMillis: listenHealth.keepAliveMs,
        connectionTimeoutMillis: listenHealth.heartbeatTimeoutMs,
        query_timeout: listenHealth.heartbeatTimeoutMs,
      },
      // Payloads stay strings; no retry deadline: a server down for a while is waited for, not given up on.
      {
        parse: (s: string) => s,
        serialize: (s: string) => s,
        // pg-listen's reconnection loop does not stop on close(); throwing here ends it.
        retryInterval: (attempt: number) => {
          if (this.closed) throw new Error('closed');
          return retryDelay(attempt);
        },
        retryLimit: Infinity,
        retryTimeout: 0,
        // pg-listen's "paranoid check" is the heartbeat: a query whose failure (query_timeout) reconnects.
        paranoidChecking: listenHealth.heartbeatMs,
      },
    );
    this.subscriber.events.on('error', (err) => {
      if (!this.closed) this.log(`database listen connection: ${err.message}`);
    });
    // pg-listen announces its first reconnection attempt as soon as it finds the connection gone.
    this.subscriber.events.on('reconnect', (attempt) => {
      if (attempt !== 1) return;
      this.log('database listen connection lost; reconnecting');
      for (const fn of this.lostHandlers) this.call(fn);
    });
    this.subscriber.events.on('notification', ({ channel, payload }) => {
      for (const handler of this.handlers.get(channel) ?? []) this.call(() => handler(String(payload ?? '')));
    });
  }

  /** Subscribes handler to channel; the returned function unsubscribes it. */
  async listen(channel: string, handler: NotificationHandler): Promise<() => Promise<void>> {
    // A failed first connect is not remembered: the next listen tries again.
    await (this.connecting ??= this.connectOnce().catch((err) => {
      this.connecting = undefined;
      throw err;
    }));
    let set = this.handlers.get(channel);
    if (!set) {
      this.handlers.set(channel, (set = new Set()));
      await this.subscriber.listenTo(channel);
    }
    const entry: NotificationHandler = (payload) => handler(payload);
    set.add(entry);
    return async () => {
      set.delete(entry);
      if (set.size > 0 || this.handlers.get(channel) !== set) return;
      this.handlers.delete(channel);
      // Forgotten first, so a replacement connection does not listen again; a connection that cannot even
      // say UNLISTEN (half-open, going away) is being replaced or closed anyway.
      await Promise.resolve(this.subscriber.unlisten(channel)).catch(() => undefined);
    };
  }

  /** Calls fn whenever notifications may have been missed (after the connection came back). */
  onGap(fn: () => void): () => void {
    this.gapHandlers.add(fn);
    return () => void this.gapHandlers.delete(fn);
  }

  /** Calls fn when the connection is lost (notifications from now until it is back are gone). */
  onLost(fn: () => void): () => void {
    this.lostHandlers.add(fn);
    return () => void this.lostHandlers.delete(fn);
  }

  async close(): Promise<void> {
    this.closed = true;
    if (!this.connecting) return;
    // A half-open connection never answers the goodbye: closing waits for it no longer than for a heartbeat.
    let timer: NodeJS.Timeout | undefined;
    const bound = new Promise<void>((r) => (timer = setTimeout(r, listenHealth.heartbeatTimeoutMs).unref()));
    await Promise.race([this.subscriber.close().catch(() => undefined), bound]);
    clearTimeout(timer);
  }

  private async connectOnce(): Promise<void> {
    await this.subscriber.connect();
    // 'connected' fires on the first connect too; only the later ones follow a gap.
    this.subscriber.events.on('connected', () => {
      // A reconnection that was under way when close() ran: this new connection is closed too.
      if (this.closed) return void this.subscriber.close().catch(() => undefined);
      this.log('database listen connection restored');
      for (const fn of this.gapHandlers) this.call(fn);
    });
  }

  private call(fn: () => void): void {
    try {
      fn();
    } catch (err) {
      this.log(`notification handler failed: ${(err as Error)?.stack ?? err}`);
    }
  }
}
