import { detached } from '../db/ambient.ts';
import type { Db } from '../db/database.ts';
import type { StreamEvent, StreamMessage as ApiStreamMessage } from '../shared/api-types.ts';
import { StreamWatchers } from './stream-watchers.ts';

export interface StreamMessage extends ApiStreamMessage {
  /** `<xid>-<seq>` of its row in stream_messages: the same on every engine, so any of them resumes it. */
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
  /** Live messages held back until the backlog has been sent, so the client sees them in order. */
  held?: StreamMessage[];
  /** Resumed from a message this engine's reader had not reached yet: live ones up to it are not news. */
  after?: Position;
}

/**
 * A client that leaves this much unread is dropped rather than buffered for without end: a
 * tab in the background or a stuck script must not grow the engine's memory. On reconnecting
 * with its Last-Event-ID it resumes from the table, or gets `reset` when that is gone.
 */
export const maxUnsentBytesPerClient = 1024 * 1024;

/** What a subscriber gets: its missed messages (or 'reset'), how to leave, and the id a `reset` sent to it carries. */
export interface Subscription {
  backlog: StreamMessage[] | 'reset';
  close: () => void;
  /** Where a reconnect of this client may resume from when it has received nothing newer. */
  lastId: string;
}

/** A position in the stream: rows are read in (xid, seq) order. */
interface Position {
  xid: string;
  seq: number;
}

const channel = 'sandbay_stream';
const flushEveryMs = 25;
/** The reader's safety net when a notification is missed. */
const pollEveryMs = 1000;
/** Rows kept for resuming; older ones are pruned (a client away longer gets `reset`). */
const keepForMs = 10 * 60_000;
const pruneEveryMs = 60_000;
/** How often an engine renews the watch of the sandboxes its clients stream (well inside keepForMs). */
const renewEveryMs = 60_000;
/** A client further behind than this many messages of its sandbox starts afresh (`reset`). */
const maxBacklog = 10_000;
const readBatch = 2_000;

const idOf = (p: Position) => `${p.xid}-${p.seq}`;
function parseId(id: string): Position | undefined {
  const match = /^(\d{1,20})-(\d{1,18})$/.exec(id);
  return match ? { xid: match[1], seq: Number(match[2]) } : undefined;
}
// xid8 values are unsigned 64-bit: compared as numbers of equal footing, never as text.
const before = (a: Position, b: Position) => BigInt(a.xid) < BigInt(b.xid) || (a.xid === b.xid && a.seq < b.seq);

// Rows of transactions still running (or that may still commit) lie at or above the horizon: a row
// committed late with a lower xid is never skipped, because nothing past the horizon is read.
const belowHorizon = 'xid < pg_snapshot_xmin(pg_current_snapshot())';

type Row = { tenant_id: string; xid: string; seq: number; event: StreamEvent; data: StreamMessage['data'] };
const selectRows = 'select tenant_id, xid::text as xid, seq, event, data from stream_messages';
const messageOf = (row: Row): StreamMessage => ({ id: idOf(row), event: row.event, data: row.data });

/**
 * The live feed behind GET /api/v1/events/stream (SPEC §5.7), shared by every engine on the
 * database: `publish` writes the messages of watched sandboxes (streamed by a client of any engine
 * now or within the resume window) to stream_messages in batches every 25 ms; each engine's
 * reader, woken by a notification (and a 1 s poll) while it has clients, hands what has committed
 * to them in order. A client reconnecting with Last-Event-ID, on any engine, gets what it missed
 * from the table — or `reset` when that is gone, was never written, or is too much.
 */
export class DeliveryStream {
  private position: Position = { xid: '0', seq: 0 };
  /** No local client: the reader rests, and the position is caught up when the next one comes. */
  private resting = true;
  private catchingUp?: Promise<void>;
  private readonly watchers: StreamWatchers;
  private outgoing: { tenantId: string; event: StreamEvent; data: StreamMessage['data'] }[] = [];
  private readonly subscribers = new Set<Subscriber>();
  private flushTimer?: NodeJS.Timeout;
  private flushing: Promise<void> = Promise.resolve();
  private reading?: Promise<void>;
  private readAgain = false;
  private timers: NodeJS.Timeout[] = [];
  private unlisten?: () => Promise<void>;
  private closed = false;

  constructor(private readonly db: Db, private readonly onError: (message: string) => void) {
    this.watchers = new StreamWatchers(db, keepForMs);
  }

  /** Follows the messages of every engine as they commit, while this one has clients. */
  async start(): Promise<void> {
    this.unlisten = await this.db.listen(channel, () => this.wake());
    const report = (what: string) => (err: unknown) => this.onError(`stream ${what} failed: ${(err as Error).message}`);
    // Timers and reads set off while a request runs must not join its transaction: detached.
    detached(this.db, () => {
      this.timers.push(setInterval(() => this.wake(), pollEveryMs));
      this.timers.push(setInterval(() => void this.prune().catch(report('prune')), pruneEveryMs));
      this.timers.push(setInterval(() => void this.renew().catch(report('watch renewal')), renewEveryMs));
    });
  }

  publish(tenantId: string, event: StreamEvent, data: StreamMessage['data']): void {
    if (this.closed) return;
    this.outgoing.push({ tenantId, event, data });
    if (!this.flushTimer) detached(this.db, () => (this.flushTimer = setTimeout(() => void this.flush(), flushEveryMs)));
  }

  /**
   * Subscribes to a sandbox's messages. With a Last-Event-ID, the missed messages are
   * returned for immediate sending (live ones wait behind them), or 'reset' when they are gone.
   */
  async subscribe(tenantId: string, lastEventId: string | undefined, link: SubscriberLink): Promise<Subscription> {
    const sub: Subscriber = { ...link, tenantId, held: lastEventId ? [] : undefined };
    this.subscribers.add(sub);
    const close = () => void this.subscribers.delete(sub);
    let watchedSince: bigint | undefined;
    try {
      // Caught up first, watched second: whatever is published once the watch has committed gets an
      // xid past the reader's position, so it reaches this client, whichever engine publishes it.
      await this.catchUp();
      watchedSince = (await this.watchers.watch([tenantId])).get(tenantId);
    } catch (err) {
      close();
      throw err;
    }
    // Everything after `upTo` reaches this subscriber live (held until the backlog is out).
    const upTo = this.position;
    // Nothing before the watch began is news to this client, and everything after it is written.
    const watchStart = { xid: String(watchedSince ?? 0n), seq: 0 };
    const lastId = idOf(before(upTo, watchStart) ? watchStart : upTo);
    if (!lastEventId) return { backlog: [], close, lastId };
    const missed = await this.since(sub, lastEventId, upTo, watchedSince ?? 0n).catch(() => 'reset' as const);
    // Held since the subscription began, so some may lie at or before upTo (in the backlog) or `after`.
    const news = (m: StreamMessage) => [upTo, sub.after ?? upTo].every((p) => before(p, parseId(m.id)!));
    const held = (sub.held ?? []).filter(news);
    sub.held = undefined;
    return { backlog: missed === 'reset' ? missed : [...missed, ...held], close, lastId };
  }

  /** The id of the newest message this engine's reader has read. */
  get lastId(): string {
    return idOf(this.position);
  }

  /** Clients cut off since start for leaving too much unread. */
  dropped = 0;

  get subscriberCount(): number {
    return this.subscribers.size;
  }

  /** Sends what is still unwritten, then stops reading. */
  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.flushTimer);
    for (const timer of this.timers) clearInterval(timer);
    await this.flush();
    await this.unlisten?.().catch(() => {});
    this.subscribers.clear();
  }

  private async since(sub: Subscriber, lastEventId: string, upTo: Position, watchedSince: bigint): Promise<StreamMessage[] | 'reset'> {
    const from = parseId(lastEventId);
    if (!from) return 'reset';
    // The sandbox went unwatched after this id: what happened then was never written.
    if (BigInt(from.xid) < watchedSince) return 'reset';
    const [marks] = await this.db.query<{ pruned: string | null; next: string }>(
      `select (select value from meta where key = 'stream_pruned_through') as pruned,
              pg_snapshot_xmax(pg_current_snapshot())::text as next`,
    );
    // An xid not handed out yet: the id comes from another database.
    if (BigInt(from.xid) >= BigInt(marks.next)) return 'reset';
    const prunedThrough = marks.pruned ? parseId(marks.pruned) : undefined;
    if (prunedThrough && before(from, prunedThrough)) return 'reset';
    // Seen on an engine whose reader is ahead of this one's: live messages up to it are skipped.
    if (before(upTo, from)) {
      sub.after = from;
      return [];
    }
    const rows = await this.db.query<Row>(
      `${selectRows}
        where tenant_id = $1 and (xid, seq) > ($2::xid8, $3) and (xid, seq) <= ($4::xid8, $5)
        order by xid, seq limit $6`,
      [sub.tenantId, from.xid, from.seq, upTo.xid, upTo.seq, maxBacklog + 1],
    );
    return rows.length > maxBacklog ? 'reset' : rows.map(messageOf);
  }

  private flush(): Promise<void> {
    this.flushTimer = undefined;
    const batch = this.outgoing;
    this.outgoing = [];
    if (batch.length === 0) return this.flushing;
    // One batch after another: a later batch must not commit first and be read past the earlier one's rows.
    this.flushing = this.flushing.then(() => this.write(batch));
    return this.flushing;
  }

  private async write(all: DeliveryStream['outgoing']): Promise<void> {
    try {
      // Checked after the messages were published: a watch committed before that is seen here.
      const watched = await this.watchers.watched([...new Set(all.map((m) => m.tenantId))]);
      const batch = all.filter((m) => watched.has(m.tenantId));
      if (batch.length === 0) return;
      await this.db.transaction(async (tx) => {
        const values = batch.map((_, i) => `($${i * 3 + 1}, $${i * 3 + 2}, $${i * 3 + 3})`).join(', ');
        await tx.query(`insert into stream_messages (tenant_id, event, data) values ${values}`,
          batch.flatMap((m) => [m.tenantId, m.event, JSON.stringify(m.data)]));
        await tx.notify(channel, '');
      });
    } catch (err) {
      // The feed is a view of the delivery log, which holds the truth: an inspector that misses these
      // messages still shows the deliveries when it lists them.
      this.onError(`stream: ${all.length} live message(s) not written: ${(err as Error).message}`);
    }
  }

  /** Reads what committed since the last read; a wake-up during a read reads again after it. */
  private wake(): void {
    if (this.closed || this.resting) return;
    if (this.subscribers.size === 0) {
      this.resting = true; // after a read in progress, if any: catchUp waits for it
      return;
    }
    if (this.reading) {
      this.readAgain = true;
      return;
    }
    this.reading = detached(this.db, () => this.read()).finally(() => {
      this.reading = undefined;
      if (this.readAgain) {
        this.readAgain = false;
        this.wake();
      }
    });
  }

  /** After a rest, starts from the newest committed message (what came before is no client's news). */
  private catchUp(): Promise<void> {
    if (!this.resting) return Promise.resolve();
    this.catchingUp ??= (async () => {
      await this.reading;
      const [newest] = await this.db.query<Position>(
        `select xid::text as xid, seq from stream_messages where ${belowHorizon} order by xid desc, seq desc limit 1`,
      );
      if (newest && before(this.position, newest)) this.position = newest;
      this.resting = false;
    })().finally(() => (this.catchingUp = undefined));
    return this.catchingUp;
  }

  private async read(): Promise<void> {
    try {
      for (;;) {
        const rows = await this.db.query<Row>(
          `${selectRows}
            where (xid, seq) > ($1::xid8, $2) and ${belowHorizon} order by xid, seq limit ${readBatch}`,
          [this.position.xid, this.position.seq],
        );
        if (rows.length === 0) return;
        this.position = { xid: rows.at(-1)!.xid, seq: rows.at(-1)!.seq };
        this.fanOut(rows);
        if (rows.length < readBatch) return;
      }
    } catch (err) {
      if (!this.closed) this.onError(`stream read failed: ${(err as Error).message}`);
    }
  }

  private fanOut(rows: Row[]): void {
    if (this.subscribers.size === 0) return;
    const byTenant = new Map<string, StreamMessage[]>();
    for (const row of rows) {
      let list = byTenant.get(row.tenant_id);
      if (!list) byTenant.set(row.tenant_id, (list = []));
      list.push(messageOf(row));
    }
    for (const sub of this.subscribers) {
      let messages = byTenant.get(sub.tenantId);
      if (!messages) continue;
      if (sub.after) {
        const after = sub.after;
        messages = messages.filter((m) => before(after, parseId(m.id)!));
        if (messages.length === 0) continue;
        sub.after = undefined; // ordered: every later message is news
      }
      if (sub.held) sub.held.push(...messages);
      else if (sub.unsentBytes() > maxUnsentBytesPerClient) {
        this.subscribers.delete(sub);
        this.dropped++;
        sub.drop();
      } else sub.send(messages);
    }
  }

  /** Keeps the sandboxes this engine's clients stream watched. */
  private async renew(): Promise<void> {
    const tenantIds = [...new Set([...this.subscribers].map((s) => s.tenantId))];
    if (tenantIds.length > 0) await this.watchers.watch(tenantIds);
  }

  /** Drops rows older than the resume window, recording up to where, so an older Last-Event-ID gets `reset`. */
  private async prune(): Promise<void> {
    await this.watchers.prune();
    await this.db.transaction(async (tx) => {
      const [last] = await tx.query<Position>(
        `select xid::text as xid, seq from stream_messages where created_at < now() - $1 * interval '1 ms'
          order by xid desc, seq desc limit 1`,
        [keepForMs],
      );
      if (!last) return;
      await tx.query('delete from stream_messages where (xid, seq) <= ($1::xid8, $2)', [last.xid, last.seq]);
      await tx.query(
        `insert into meta (key, value) values ('stream_pruned_through', $1) on conflict (key) do update set value = excluded.value`,
        [idOf(last)],
      );
    });
  }
}
