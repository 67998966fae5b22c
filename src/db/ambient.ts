import { AsyncLocalStorage } from 'node:async_hooks';
import type { Db, Tx } from './database.ts';

/**
 * A Db whose `ambient()` runs a piece of work in one transaction that every query and
 * transaction that work issues through this Db joins, wherever in its call tree they are.
 */
export interface AmbientDb extends Db {
  /**
   * Runs `work` in one transaction, begun at its first statement (what it awaits before that, a DNS
   * lookup say, holds no connection): `query`/`exec` calls from its async flow join it, and a
   * `transaction()` inside it becomes a savepoint (rolled back alone when its function throws).
   * Then `finish` runs in the same transaction, which nothing joins any more, and it commits.
   * If either throws, everything rolls back. afterCommit callbacks, nested ones included, run
   * only after the COMMIT.
   */
  ambient<T, R>(work: () => Promise<T>, finish: (tx: Tx, outcome: T) => Promise<R>): Promise<R>;
  /**
   * Runs `fn` outside any ambient transaction: what it starts (timers, attempts, flushes) uses the
   * database as usual even when it was set off from inside a keyed request's transaction.
   */
  detached<T>(fn: () => T): T;
}

/** Runs background work outside any ambient transaction of `db` (a plain Db has none). */
export function detached<T>(db: Db, fn: () => T): T {
  return 'detached' in db && typeof db.detached === 'function' ? (db as AmbientDb).detached(fn) : fn();
}

/** What a level runs its statements on. */
type Statements = Pick<Tx, 'query' | 'exec'>;

/** One level of an ambient transaction: the transaction itself, or a savepoint inside it. */
interface Frame {
  /** The driver's transaction (begun on its first statement), shared by every level. */
  tx: Statements;
  /** False once its work has settled: timers it left behind then use the database as usual. */
  joinable: boolean;
  after: (() => void)[];
  /** Runs this level's statements and savepoints one after another. */
  queue: Promise<unknown>;
}

let savepoints = 0;

function serial<T>(frame: Frame, op: () => Promise<T>): Promise<T> {
  const result = frame.queue.then(op);
  frame.queue = result.catch(() => {});
  return result;
}

/**
 * A notification from inside an ambient transaction is sent once it commits, and not at all when its
 * level (a savepoint) rolls back: it rides this level's afterCommit list, which a rollback discards.
 * A send that fails after the commit loses one wake-up, which the listeners' slow poll makes up for.
 */
const notifyAfterCommit = (frame: Frame, db: Db) => (channel: string, payload: string) =>
  void frame.after.push(() => void db.notify(channel, payload).catch(() => undefined));

const txOf = (frame: Frame, db: Db): Tx => ({
  query: (sql, params) => serial(frame, () => frame.tx.query(sql, params)),
  exec: (sql) => serial(frame, () => frame.tx.exec(sql)),
  afterCommit: (cb) => void frame.after.push(cb),
  notify: async (channel, payload) => notifyAfterCommit(frame, db)(channel, payload),
});

/**
 * The transaction of one ambient() call, begun when its work first needs it rather than before the
 * work starts: whatever the work awaits first (the outbound policy's DNS lookup, up to 5 s) then holds
 * no connection, which on PGlite is the only one and on PostgreSQL one of a small pool (SPEC §9: no
 * request holds a connection across I/O). COMMIT runs `last` in it, beginning it if nothing did.
 */
class LazyTransaction<R> {
  private begun?: Promise<Tx>;
  private done?: Promise<R>;
  private body!: { resolve: (last: () => Promise<R>) => void; reject: (err: unknown) => void };

  constructor(private readonly db: Db) {}

  readonly statements: Statements = {
    query: async (sql, params) => (await this.begin()).query(sql, params),
    exec: async (sql) => (await this.begin()).exec(sql),
  };

  private begin(): Promise<Tx> {
    this.begun ??= new Promise<Tx>((opened, failed) => {
      const body = new Promise<() => Promise<R>>((resolve, reject) => (this.body = { resolve, reject }));
      body.catch(() => {}); // rejected only to roll back; a BEGIN that failed never reads it
      this.done = this.db.transaction(async (tx) => {
        opened(tx);
        return (await body)();
      });
      this.done.catch(failed); // a BEGIN that fails fails the statement that wanted it
    });
    return this.begun;
  }

  async commit(last: () => Promise<R>): Promise<R> {
    await this.begin();
    this.body.resolve(last);
    return this.done!;
  }

  /** Rolls back what was begun, if anything. */
  async rollback(reason: unknown): Promise<void> {
    if (!this.begun) return;
    this.body.reject(reason);
    await this.done!.catch(() => {});
  }
}

/**
 * Adds ambient transactions to any Db (it only needs `transaction()`), so a caller can make a
 * handler's writes and something of its own one transaction without the handler knowing.
 */
export function withAmbientTransactions(db: Db): AmbientDb {
  const frames = new AsyncLocalStorage<Frame>();
  let active = 0;
  const joined = (): Frame | undefined => {
    const frame = frames.getStore();
    return frame?.joinable ? frame : undefined;
  };

  const savepoint = <T>(parent: Frame, fn: (tx: Tx) => Promise<T>): Promise<T> =>
    serial(parent, async () => {
      const name = `ambient_${++savepoints}`;
      await parent.tx.query(`savepoint ${name}`);
      const child: Frame = { tx: parent.tx, joinable: true, after: [], queue: Promise.resolve() };
      try {
        const result = await frames.run(child, () => fn(txOf(child, db)));
        child.joinable = false;
        await child.queue;
        await parent.tx.query(`release savepoint ${name}`);
        parent.after.push(...child.after);
        return result;
      } catch (err) {
        child.joinable = false;
        await child.queue;
        await parent.tx.query(`rollback to savepoint ${name}`);
        throw err;
      }
    });

  return {
    query: (sql, params, options) => {
      const frame = joined();
      return frame ? serial(frame, () => frame.tx.query(sql, params)) : db.query(sql, params, options);
    },
    exec: (sql) => {
      const frame = joined();
      return frame ? serial(frame, () => frame.tx.exec(sql)) : db.exec(sql);
    },
    transaction: (fn) => {
      const frame = joined();
      return frame ? savepoint(frame, fn) : db.transaction(fn);
    },
    notify: async (channel, payload) => {
      const frame = joined();
      if (frame) notifyAfterCommit(frame, db)(channel, payload);
      else await db.notify(channel, payload);
    },
    driver: db.driver,
    listen: (channel, handler) => db.listen(channel, handler),
    onNotificationsMissed: (fn) => db.onNotificationsMissed(fn),
    onNotificationsLost: (fn) => db.onNotificationsLost(fn),
    withAdvisoryLock: (key, fn) => db.withAdvisoryLock(key, fn),
    roundTrips: () => db.roundTrips(),
    close: () => db.close(),
    detached: (fn) => (active > 0 ? frames.exit(fn) : fn()),
    async ambient<T, R>(work: () => Promise<T>, finish: (tx: Tx, outcome: T) => Promise<R>): Promise<R> {
      const after: (() => void)[] = [];
      active++;
      try {
        const transaction = new LazyTransaction<R>(db);
        const root: Frame = { tx: transaction.statements, joinable: true, after, queue: Promise.resolve() };
        let outcome: T;
        try {
          outcome = await frames.run(root, work);
        } catch (err) {
          root.joinable = false;
          await root.queue;
          await transaction.rollback(err);
          throw err;
        }
        root.joinable = false;
        await root.queue;
        const result = await transaction.commit(() => finish(txOf(root, db), outcome));
        for (const cb of after) cb();
        return result;
      } finally {
        // Tracking async context costs every promise a little; pay it only while it is used.
        if (--active === 0) frames.disable();
      }
    },
  };
}
