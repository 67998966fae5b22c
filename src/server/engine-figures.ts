import cluster, { type Worker } from 'node:cluster';
import type { Db } from '../db/database.ts';

/** What GET /api/v1/metrics reports: this engine run's figures, summed over its processes. */
export interface EngineFigures {
  /** Engine processes counted: 1, or every worker of `serve --workers N` that answered. */
  processes: number;
  /** Statements sent to the database since each process started (Db.roundTrips()). */
  databaseRoundTrips: number;
}

/** Messages between a worker and its primary; a request id pairs each answer with its question. */
type FiguresMessage =
  | { figuresWanted: number } // worker → primary: the run's figures, please
  | { figuresOfYours: number } // primary → worker: this process's own
  | { figuresMine: number; figures: EngineFigures } // worker → primary
  | { figuresOfRun: number; figures: EngineFigures }; // primary → the worker that asked

const own = (db: Db): EngineFigures => ({ processes: 1, databaseRoundTrips: db.roundTrips() });

/**
 * This engine run's figures: this process's own, or in a worker of `serve --workers N` every worker's summed
 * by the primary (a request reaches one worker, the operator wants the run). The worker answers its share here too.
 */
export function engineFigures(db: Db, worker: boolean): () => Promise<EngineFigures> {
  if (!worker) return async () => own(db);
  const waiting = new Map<number, (figures: EngineFigures) => void>();
  let asked = 0;
  process.on('message', (message: FiguresMessage) => {
    if (typeof message !== 'object' || message === null) return;
    if ('figuresOfYours' in message) process.send!({ figuresMine: message.figuresOfYours, figures: own(db) });
    if ('figuresOfRun' in message) waiting.get(message.figuresOfRun)?.(message.figures);
  });
  return () =>
    new Promise((resolve) => {
      const id = ++asked;
      waiting.set(id, (figures) => {
        waiting.delete(id);
        resolve(figures);
      });
      process.send!({ figuresWanted: id } satisfies FiguresMessage);
    });
}

/** How long the primary waits for a worker's share: one busy or dying worker must not hang the answer. */
const shareWaitMs = 2_000;

/** In the primary: answers a worker's request for the run's figures with every live worker's, summed. */
export function sumWorkerFigures(): void {
  cluster.on('message', (asker: Worker, message: FiguresMessage) => {
    if (typeof message !== 'object' || message === null || !('figuresWanted' in message)) return;
    const workers = Object.values(cluster.workers ?? {}).filter((w): w is Worker => Boolean(w) && w!.isConnected());
    void Promise.all(workers.map(shareOf)).then((shares) => {
      const figures = { processes: 0, databaseRoundTrips: 0 };
      for (const share of shares) {
        if (!share) continue;
        figures.processes += share.processes;
        figures.databaseRoundTrips += share.databaseRoundTrips;
      }
      // The asker may have died meanwhile: then no one is waiting for the answer.
      if (asker.isConnected()) asker.send({ figuresOfRun: message.figuresWanted, figures } satisfies FiguresMessage);
    });
  });
}

let shares = 0;

/** One worker's own figures, or undefined when it does not answer in time (it is not counted). */
function shareOf(worker: Worker): Promise<EngineFigures | undefined> {
  const id = ++shares;
  return new Promise((resolve) => {
    const done = (figures: EngineFigures | undefined) => {
      clearTimeout(timer);
      worker.off('message', onMessage);
      resolve(figures);
    };
    const onMessage = (message: FiguresMessage) => {
      if (typeof message === 'object' && message !== null && 'figuresMine' in message && message.figuresMine === id)
        done(message.figures);
    };
    const timer = setTimeout(() => done(undefined), shareWaitMs);
    worker.on('message', onMessage);
    worker.send({ figuresOfYours: id } satisfies FiguresMessage);
  });
}
