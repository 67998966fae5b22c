import { detached } from '../db/ambient.ts';
import type { Db } from '../db/database.ts';
import type { StreamEvent, StreamMessage as ApiStreamMessage } from '../shared/api-types.ts';
import { StreamWatchers } from './stream-watchers.ts';

export interface StreamMessage extends ApiStreamMessage {
  /** The message's number in its sandbox's stream: the same on every engine, so any of them resumes it. */
  id: string;
}

/** How a subscriber's connection is watched: what it still holds unsent, and how to cut it. */
export interface SubscriberLink {
  send: (messages: StreamMessage[]) => void;
  /** Bytes written to the client that it has not read yet (the socket's and Node's buffers). */
  unsentBytes: () => number;
  /** Ends the client's connection; called once, when it stopped reading. */
  drop: () => void;
}

interface Subscriber extends SubscriberLink {
  tenantId: string;
  /** The number of the last message this client was sent (or where it started). */
  sent: number;
  /** Served from the table rather than live: it is resuming, or it let its buffer fill. */
  catchingUp: boolean;
  closed: boolean;
}

/** A sandbox some client of this engine streams: how far the reader has read it, and who follows it. */
interface Feed {
  position: number;
  subscribers: Set<Subscriber>;
}

/**
 * What a client may leave unread: past it, nothing more is written to it until it has read down to
 * half (it then catches up from the table, not from engine memory), and one that stays past it for
 * `stallMs` is dropped, to resume with its Last-Event-ID. Small, since falling behind loses nothing:
 * ~1,000 messages, seconds of a busy sandbox.
 */
export const maxUnsentBytesPerClient = 256 * 1024;
const defaultStallMs = 30_000;

export interface Subscription {
  close: () => void;
  /** Where a reconnect of this client may resume from when it has received nothing newer. */
  lastId: string;
}

const channel = 'sandbay_stream';
const flushEveryMs = 25;
/** The reader's safety net when a notification is missed. */
const pollEveryMs = 1000;
/** Messages kept for resuming; older ones are pruned (a client away longer gets `reset`). */
const keepForMs = 10 * 60_000;
const pruneEveryMs = 60_000;
/** How often an engine renews the watch of the sandboxes its clients stream (well inside keepForMs). */
const renewEveryMs = 60_000;
/** A client further behind than this many messages of its sandbox starts afresh (`reset`). */
const maxBacklog = 10_000;
/** Rows per read of the live reader, per sandbox. */
const readBatch = 500;
/** Rows per page sent to a client catching up: written only below the cap, so the cap plus one page bounds it. */
const catchUpPage = 200;
const drainPollMs = 50;

const parseId = (id: string) => (/^\d{1,15}$/.test(id) ? Number(id) : undefined);

type Row = { tenant_id: string; seq: number; event: StreamEvent; data: StreamMessage['data'] };
const messageOf = (row: Row): StreamMessage => ({ id: String(row.seq), event: row.event, data: row.data });
const resetMessage = (at: number): StreamMessage => ({
  id: String(at),
  event: 'reset',
  data: { reason: 'cannot_resume' },
});

/**
 * The live feed behind GET /api/v1/events/stream (SPEC §5.7), shared by every engine on the database.
 * `publish` writes the messages of watched sandboxes (streamed by a client of any engine now or within
 * the resume window) to stream_messages every 25 ms, numbered per sandbox in commit order under the
 * sandbox's stream counter: whoever has read up to n has missed nothing below n, whatever other
 * sessions are doing. Each engine reads the sandboxes its clients stream, woken by a notification (and
 * a 1 s poll), and hands them the new messages. A client with a Last-Event-ID, on any engine, is served
 * what it missed from the table — or `reset` when that is gone, was never written, or is too much.
 */
export class DeliveryStream {
  private readonly feeds = new Map<string, Feed>();
  private readonly watchers: StreamWatchers;
  private outgoing: { tenantId: string; event: StreamEvent; data: StreamMessage['data'] }[] = [];
  private flushTimer?: NodeJS.Timeout;
  private flushing: Promise<void> = Promise.resolve();
  private reading?: Promise<void>;
  private readAgain = false;
  private timers: NodeJS.Timeout[] = [];
  private unlisten?: () => Promise<void>;
  private closed = false;

  /** Clients cut off since start for not reading. */
  dropped = 0;

  constructor(
    private readonly db: Db,
    private readonly onError: (message: string) => void,
    private readonly stallMs = defaultStallMs,
  ) {
    this.watchers = new StreamWatchers(db, keepForMs);
  }

  /** Follows the messages of every engine as they commit, for the sandboxes this one's clients stream. */
  async start(): Promise<void> {
    this.unlisten = await this.db.listen(channel, (payload) => this.wake(payload ? payload.split(',') : undefined));
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
    if (!this.flushTimer)
      detached(this.db, () => (this.flushTimer = setTimeout(() => void this.flush(), flushEveryMs)));
  }

  /**
   * Subscribes to a sandbox's messages from now on; with a Last-Event-ID, from just after it (the missed
   * ones are sent first, from the table), or from now after a `reset` message when that is not possible.
   */
  async subscribe(tenantId: string, lastEventId: string | undefined, link: SubscriberLink): Promise<Subscription> {
    // Watched first, read second: whatever is published once the watch has committed is written, with
    // a number above the counter read here, so it reaches this client whichever engine publishes it.
    const since = (await this.watchers.watch([tenantId])).get(tenantId) ?? 0;
    const now = await this.counter(tenantId);
    let feed = this.feeds.get(tenantId);
    if (!feed) this.feeds.set(tenantId, (feed = { position: now, subscribers: new Set() }));
    const sub: Subscriber = { ...link, tenantId, sent: now, catchingUp: false, closed: false };
    feed.subscribers.add(sub);
    if (lastEventId !== undefined) {
      const from = parseId(lastEventId);
      // Not ours (malformed, another database's), from before this watch began (messages went unwritten), or too far
      // behind.
      if (from === undefined || from > now || from < since || now - from > maxBacklog) sub.send([resetMessage(now)]);
      else if (from < now) {
        sub.sent = from;
        sub.catchingUp = true;
        // Cannot reject: catchUp() catches: it reports and cuts the client.
        void detached(this.db, () => this.catchUp(feed, sub));
      }
    }
    return { close: () => this.leave(feed, sub), lastId: String(now) };
  }

  get subscriberCount(): number {
    let n = 0;
    for (const feed of this.feeds.values()) n += feed.subscribers.size;
    return n;
  }

  /** How many sandboxes this engine follows (one entry each while a client here streams it). */
  get feedCount(): number {
    return this.feeds.size;
  }

  /** Sends what is still unwritten, then stops reading. */
  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.flushTimer);
    for (const timer of this.timers) clearInterval(timer);
    await this.flush();
    await this.unlisten?.().catch(() => {});
    for (const feed of this.feeds.values()) for (const sub of feed.subscribers) sub.closed = true;
    this.feeds.clear();
  }

  private async counter(tenantId: string): Promise<number> {
    const [row] = await this.db.query<{ seq: number }>('select seq from stream_counters where tenant_id = $1', [
      tenantId,
    ]);
    return row?.seq ?? 0;
  }

  private leave(feed: Feed, sub: Subscriber): void {
    sub.closed = true;
    feed.subscribers.delete(sub);
    if (feed.subscribers.size === 0 && this.feeds.get(sub.tenantId) === feed) this.feeds.delete(sub.tenantId);
  }

  private cut(feed: Feed, sub: Subscriber): void {
    if (sub.closed) return;
    this.leave(feed, sub);
    this.dropped++;
    sub.drop();
  }

  /**
   * Sends a client what it is behind by from the table, a page at a time and never past its buffer's
   * cap, until it has caught up with the reader; then it follows live again. A hole in the numbers
   * (pruned, or a watch that lapsed) means messages it can no longer get: `reset`.
   */
  private async catchUp(feed: Feed, sub: Subscriber): Promise<void> {
    try {
      while (!sub.closed) {
        if (sub.unsentBytes() > maxUnsentBytesPerClient && !(await this.drained(sub))) return this.cut(feed, sub);
        const rows = await this.db.query<Row>(
          'select tenant_id, seq, event, data from stream_messages where tenant_id = $1 and seq > $2 order by seq limit $3',
          [sub.tenantId, sub.sent, catchUpPage],
        );
        if (sub.closed) return;
        const whole = rows.findIndex((row, i) => row.seq !== sub.sent + 1 + i);
        const page = whole === -1 ? rows : rows.slice(0, whole);
        if (page.length > 0) {
          sub.send(page.map(messageOf));
          sub.sent = page.at(-1)!.seq;
        }
        if (whole !== -1 || (rows.length === 0 && feed.position > sub.sent)) {
          sub.sent = Math.max(feed.position, rows.at(-1)?.seq ?? 0);
          sub.send([resetMessage(sub.sent)]);
        }
        // Caught up with the reader: what it reads next reaches this client live.
        if (rows.length < catchUpPage && feed.position <= sub.sent) break;
      }
    } catch (err) {
      if (!sub.closed) this.onError(`stream catch-up failed: ${(err as Error).message}`);
      return this.cut(feed, sub);
    }
    sub.catchingUp = false;
  }

  /** Waits until the client has read its buffer down to half; false if it has not within stallMs, or left. */
  private async drained(sub: Subscriber): Promise<boolean> {
    for (const deadline = Date.now() + this.stallMs; Date.now() < deadline;) {
      await new Promise((r) => setTimeout(r, drainPollMs));
      if (sub.closed || this.closed) return false;
      if (sub.unsentBytes() <= maxUnsentBytesPerClient / 2) return true;
    }
    return false;
  }

  private flush(): Promise<void> {
    this.flushTimer = undefined;
    const batch = this.outgoing;
    this.outgoing = [];
    if (batch.length === 0) return this.flushing;
    this.flushing = this.flushing.then(() => this.write(batch));
    return this.flushing;
  }

  private async write(all: DeliveryStream['outgoing']): Promise<void> {
    try {
      // Checked after the messages were published: a watch committed before that is seen here.
      const watched = await this.watchers.watched([...new Set(all.map((m) => m.tenantId))]);
      const batch = all.filter((m) => watched.has(m.tenantId));
      if (batch.length === 0) return;
      const tenants = [...new Set(batch.map((m) => m.tenantId))].sort();
      await this.db.transaction(async (tx) => {
        // Numbers are taken under each sandbox's counter row (in one order, so two engines never deadlock)
        // and released at COMMIT: a message is visible only once every lower number of its sandbox is.
        const counters = await tx.query<{ tenant_id: string; seq: number }>(
          'select tenant_id, seq from stream_counters where tenant_id = any($1::text[]) order by tenant_id for update',
          [tenants],
        );
        const next = new Map(counters.map((c) => [c.tenant_id, c.seq]));
        const rows = batch.flatMap((m) => {
          const seq = next.get(m.tenantId);
          if (seq === undefined) return []; // its sandbox is gone
          next.set(m.tenantId, seq + 1);
          return [[m.tenantId, seq + 1, m.event, JSON.stringify(m.data)] as const];
        });
        if (rows.length === 0) return;
        await tx.query(
          `insert into stream_messages (tenant_id, seq, event, data)
           select t, s, e, d::jsonb from unnest($1::text[], $2::bigint[], $3::text[], $4::text[]) as m(t, s, e, d)`,
          [0, 1, 2, 3].map((i) => rows.map((r) => r[i])),
        );
        await tx.query(
          'update stream_counters c set seq = n.seq from unnest($1::text[], $2::bigint[]) as n(tenant_id, seq) where c.tenant_id = n.tenant_id',
          [[...next.keys()], [...next.values()]],
        );
        const named = [...next.keys()].join(',');
        await tx.notify(channel, named.length < 7_000 ? named : '');
      });
    } catch (err) {
      // The feed is a view of the delivery log, which holds the truth: an inspector that misses these
      // messages still shows the deliveries when it lists them.
      this.onError(`stream: ${all.length} live message(s) not written: ${(err as Error).message}`);
    }
  }

  /** Reads what committed since the last read; a wake-up during a read reads again after it. */
  private wake(tenants?: string[]): void {
    if (this.closed || this.feeds.size === 0) return;
    if (tenants && !tenants.some((t) => this.feeds.has(t))) return;
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

  private async read(): Promise<void> {
    try {
      for (let full = true; full && this.feeds.size > 0;) {
        const followed = [...this.feeds].map(([tenantId, feed]) => [tenantId, feed.position] as const);
        const rows = await this.db.query<Row>(
          `select m.tenant_id, m.seq, m.event, m.data
             from unnest($1::text[], $2::bigint[]) as f(tenant_id, after)
             cross join lateral (select s.tenant_id, s.seq, s.event, s.data from stream_messages s
                                  where s.tenant_id = f.tenant_id and s.seq > f.after order by s.seq limit ${readBatch}) m
            order by m.tenant_id, m.seq`,
          [followed.map(([t]) => t), followed.map(([, p]) => p)],
        );
        full = false;
        for (let start = 0; start < rows.length;) {
          let end = start;
          while (end < rows.length && rows[end].tenant_id === rows[start].tenant_id) end++;
          full ||= end - start === readBatch;
          this.fanOut(rows[start].tenant_id, rows.slice(start, end));
          start = end;
        }
      }
    } catch (err) {
      if (!this.closed) this.onError(`stream read failed: ${(err as Error).message}`);
    }
  }

  private fanOut(tenantId: string, rows: Row[]): void {
    const feed = this.feeds.get(tenantId);
    if (!feed) return;
    feed.position = Math.max(feed.position, rows.at(-1)!.seq);
    for (const sub of feed.subscribers) {
      if (sub.catchingUp) continue;
      const fresh = rows.filter((row) => row.seq > sub.sent);
      if (fresh.length === 0) continue;
      // Behind (a full buffer) or a hole in the numbers: from the table, which pages and checks.
      if (sub.unsentBytes() > maxUnsentBytesPerClient || fresh[0].seq !== sub.sent + 1) {
        sub.catchingUp = true;
        // Cannot reject: catchUp() catches: it reports and cuts the client.
        void detached(this.db, () => this.catchUp(feed, sub));
        continue;
      }
      sub.send(fresh.map(messageOf));
      sub.sent = fresh.at(-1)!.seq;
    }
  }

  /** Keeps the sandboxes this engine's clients stream watched. */
  private async renew(): Promise<void> {
    if (this.feeds.size > 0) await this.watchers.watch([...this.feeds.keys()]);
  }

  /** Drops messages older than the resume window (one engine at a time); a client needing them gets `reset`. */
  private async prune(): Promise<void> {
    await this.watchers.prune();
    await this.db.transaction(async (tx) => {
      const [{ mine }] = await tx.query<{ mine: boolean }>(
        `select pg_try_advisory_xact_lock(hashtextextended('stream:prune', 0)) as mine`,
      );
      if (mine)
        await tx.query(`delete from stream_messages where created_at < now() - $1 * interval '1 ms'`, [keepForMs]);
    });
  }
}
