import type { StreamEvent, StreamMessage as ApiStreamMessage } from '../shared/api-types.ts';
import { randomString } from '../shared/ids.ts';

export interface StreamMessage extends ApiStreamMessage {
  /** `<boot>-<seq>`: the boot part tells a reconnecting client whether we can resume it. */
  id: string;
}

/** How a subscriber's connection is watched: what it still holds unsent, and how to cut it. */
export interface SubscriberLink {
  send: (messages: StreamMessage[]) => void;
  /** Bytes written to the client that it has not read yet (the socket's and Node's buffers). */
  unsentBytes: () => number;
  /** Ends the client's connection; called once, when it fell too far behind. */
  drop: () => void;
}

interface Subscriber extends SubscriberLink {
  tenantId: string;
  pending: StreamMessage[];
}

const ringSize = 20_000;
const flushEveryMs = 25;
/**
 * A client that leaves this much unread is dropped rather than buffered for without end: a
 * tab in the background or a stuck script must not grow the engine's memory. On reconnecting
 * with its Last-Event-ID it resumes from the ring, or gets `reset` when that is gone.
 */
export const maxUnsentBytesPerClient = 1024 * 1024;

/**
 * The live feed behind GET /api/v1/events/stream (SPEC §5.7): one message per change,
 * flushed to subscribers in batches every 25 ms, with a ring of recent messages so a
 * client reconnecting with Last-Event-ID gets what it missed — or `reset` when it cannot
 * (another boot, or too far behind).
 */
export class DeliveryStream {
  readonly bootId = randomString(8);
  private seq = 0;
  private readonly ring: { seq: number; tenantId: string; message: StreamMessage }[] = [];
  private readonly subscribers = new Set<Subscriber>();
  private timer?: NodeJS.Timeout;

  publish(tenantId: string, event: StreamEvent, data: StreamMessage['data']): void {
    const seq = ++this.seq;
    const message: StreamMessage = { id: `${this.bootId}-${seq}`, event, data };
    this.ring.push({ seq, tenantId, message });
    if (this.ring.length > ringSize) this.ring.splice(0, this.ring.length - ringSize);
    let any = false;
    for (const sub of this.subscribers) {
      if (sub.tenantId !== tenantId) continue;
      sub.pending.push(message);
      any = true;
    }
    if (any && !this.timer) this.timer = setTimeout(() => this.flush(), flushEveryMs);
  }

  /**
   * Subscribes to a sandbox's messages. With a Last-Event-ID, the missed messages are
   * returned for immediate sending, or 'reset' when they are gone.
   */
  subscribe(tenantId: string, lastEventId: string | undefined, link: SubscriberLink): { backlog: StreamMessage[] | 'reset'; close: () => void } {
    const sub: Subscriber = { ...link, tenantId, pending: [] };
    this.subscribers.add(sub);
    return { backlog: lastEventId ? this.since(tenantId, lastEventId) : [], close: () => this.subscribers.delete(sub) };
  }

  /** The id of the newest message: a `reset` sent now carries it, so a reconnect resumes from here. */
  get lastId(): string {
    return `${this.bootId}-${this.seq}`;
  }

  /** Clients cut off since start for leaving too much unread. */
  dropped = 0;

  get subscriberCount(): number {
    return this.subscribers.size;
  }

  private since(tenantId: string, lastEventId: string): StreamMessage[] | 'reset' {
    const [boot, seqText] = lastEventId.split('-');
    const lastSeq = Number(seqText);
    if (boot !== this.bootId || !Number.isInteger(lastSeq) || lastSeq > this.seq) return 'reset';
    const oldest = this.ring[0]?.seq ?? this.seq + 1;
    if (lastSeq < oldest - 1) return 'reset';
    return this.ring.filter((r) => r.seq > lastSeq && r.tenantId === tenantId).map((r) => r.message);
  }

  private flush(): void {
    this.timer = undefined;
    for (const sub of this.subscribers) {
      if (sub.pending.length === 0) continue;
      const batch = sub.pending;
      sub.pending = [];
      if (sub.unsentBytes() > maxUnsentBytesPerClient) {
        this.subscribers.delete(sub);
        this.dropped++;
        sub.drop();
        continue;
      }
      sub.send(batch);
    }
  }

  close(): void {
    clearTimeout(this.timer);
    this.subscribers.clear();
  }
}
