import type { NotificationHandler } from './database.ts';

/**
 * NOTIFY/LISTEN within one process: a PGlite data dir belongs to one process, so every listener
 * is here. Delivery is asynchronous, like a notification arriving from the server.
 */
export class LocalNotifications {
  private readonly channels = new Map<string, Set<NotificationHandler>>();

  constructor(private readonly onError: (err: unknown) => void) {}

  listen(channel: string, handler: NotificationHandler): () => Promise<void> {
    let handlers = this.channels.get(channel);
    if (!handlers) this.channels.set(channel, (handlers = new Set()));
    // A wrapper per subscription, so subscribing one function twice needs two unsubscribes (as with LISTEN twice).
    const entry: NotificationHandler = (payload) => handler(payload);
    handlers.add(entry);
    return async () => void handlers.delete(entry);
  }

  notify(channel: string, payload: string): void {
    if (this.channels.get(channel)?.size) setImmediate(() => this.deliver(channel, payload));
  }

  /** Hands a notification to the channel's handlers now. */
  deliver(channel: string, payload: string): void {
    for (const handler of this.channels.get(channel) ?? []) {
      try {
        handler(payload);
      } catch (err) {
        this.onError(err);
      }
    }
  }
}

/** Runs fn after every earlier holder of key has finished: an in-process stand-in for an advisory lock. */
export class LocalLocks {
  private readonly tails = new Map<string, Promise<unknown>>();

  async withLock<T>(key: string, fn: () => Promise<T>): Promise<T> {
    const previous = this.tails.get(key) ?? Promise.resolve();
    const run = previous.then(fn, fn);
    const tail = run.catch(() => undefined);
    this.tails.set(key, tail);
    try {
      return await run;
    } finally {
      if (this.tails.get(key) === tail) this.tails.delete(key);
    }
  }
}
