import cluster, { type Worker } from 'node:cluster';
import { randomString } from '../shared/ids.ts';
import { resolveExposure, StartupError } from './auth/shared-server.ts';
import { dataDirAdminKey, unknownAdminKeyNotice } from './admin-key.ts';
import { claimDataDir } from './claim-data-dir.ts';
import { sumWorkerFigures } from './engine-figures.ts';
import { defaultDataDir } from './data-dir.ts';
import { writeDiscovery } from './instance-lock.ts';
import type { RunningSandbox, SandboxOptions } from './start.ts';

/** The environment variable that hands a worker its primary's database and instance id. */
const workerEnv = 'SANDBAY_CLUSTER_WORKER';

/** What a worker tells its primary once it serves. */
type WorkerReady = Pick<
  RunningSandbox,
  'url' | 'publicUrl' | 'readyUrl' | 'shared' | 'adminKey' | 'port' | 'boundAddress'
>;

/** What the primary of `serve --workers N` reports, like a RunningSandbox for one process. */
export interface RunningCluster extends WorkerReady {
  /** The id of this run: its lock, discovery file and every worker's health route name it. */
  instanceId: string;
  dataDir?: string;
  workers: number;
  /**
   * Stops the workers (each finishes its attempts in flight), then the managed PostgreSQL, then releases the data dir.
   */
  close(): Promise<void>;
}

/** A worker crashing more often than this is a fault to report, not a crash to paper over. */
const restartBudget = { restarts: 5, withinMs: 60_000 };

/**
 * The primary of `serve --workers N` (node:cluster): holds the data dir's lock, starts the managed
 * PostgreSQL of --postgres, forks N workers that each run the whole engine on the shared port (the
 * database is their one truth), restarts a worker that dies, and writes one discovery file.
 * PGlite is one process's database, so workers need PostgreSQL.
 */
export async function startCluster(
  options: SandboxOptions,
  workers: number,
  log: (line: string) => void,
): Promise<RunningCluster> {
  if (!options.databaseUrl && !options.postgres) {
    throw new StartupError(
      '--workers needs PostgreSQL: pass --postgres (a server Sandbay runs in its data dir) or --database-url postgres://…; PGlite serves one process',
    );
  }
  const exposure = resolveExposure({
    host: options.host ?? '127.0.0.1',
    publicUrl: options.publicUrl,
    adminKey: options.adminKey,
  });
  const dataDir = options.memory ? undefined : (options.dataDir ?? defaultDataDir());
  const instanceId = `ins_${randomString(20)}`;
  const cleanups: (() => void | Promise<void>)[] = [];
  const cleanup = async () => {
    for (const fn of cleanups.reverse()) await fn();
    cleanups.length = 0;
  };
  let closing = false;
  let serving = false;
  try {
    const { databaseUrl, tightened } = await claimDataDir(
      { dataDir, instanceId, databaseUrl: options.databaseUrl, postgres: options.postgres },
      cleanups,
    );
    if (tightened) log(tightened);
    // Workers open the database, not the data dir: the data dir's admin key (--postgres) comes with them; on a
    // --database-url they get the data dir to keep the database's key in (admin-key.ts, sharedDatabaseAdminKey).
    const adminKey = !exposure.adminKey && dataDir && !options.databaseUrl ? await dataDirAdminKey(dataDir) : undefined;
    const adminKeyDir = options.databaseUrl ? dataDir : undefined;
    const env = { [workerEnv]: JSON.stringify({ instanceId, databaseUrl, adminKey, adminKeyDir }) };
    const restarts: number[] = [];
    // Workers accept from the shared socket themselves. Under the default round-robin the primary accepts
    // each connection and passes it on, keeping it open until the worker says it took it: one passed to a
    // worker killed meanwhile stayed open, answered by no one, until the client timed out. Accepted by the
    // worker, it is reset by the kernel as the worker dies, and the ones not yet taken go to another.
    cluster.schedulingPolicy = cluster.SCHED_NONE;
    const fork = () => cluster.fork(env);
    sumWorkerFigures();
    cluster.on('exit', (worker, code, signal) => {
      if (closing || !serving) return;
      const now = Date.now();
      restarts.push(now);
      while (restarts[0] < now - restartBudget.withinMs) restarts.shift();
      if (restarts.length > restartBudget.restarts) {
        log(
          `worker ${worker.id} exited (${signal ?? `code ${code}`}); ${restartBudget.restarts} restarts within a minute, stopping`,
        );
        process.exitCode = 1;
        process.kill(process.pid, 'SIGTERM');
        return;
      }
      log(`worker ${worker.id} exited (${signal ?? `code ${code}`}); starting another`);
      const replacement = fork();
      // A failed start exits too, and this handler takes it from there.
      readyOf(replacement).then(
        () => log(`worker ${replacement.id} serves in place of worker ${worker.id}`),
        () => {},
      );
    });
    cleanups.push(() => stopWorkers());
    const ready = await Promise.all(Array.from({ length: workers }, () => readyOf(fork())));
    serving = true;
    // Without a data dir, only the worker that made a shared database's key knows it: its ready line is the one.
    const first = ready.find((worker) => worker.adminKey) ?? ready[0];
    // Said here once, not by each worker: a worker that did not make the key is no news while another did.
    if (!first.adminKey) log(unknownAdminKeyNotice);
    if (exposure.shared !== first.shared) throw new Error('a worker disagrees with its primary on exposure');
    if (dataDir) {
      cleanups.push(
        writeDiscovery(dataDir, {
          url: first.url,
          ...(first.publicUrl !== first.url ? { publicUrl: first.publicUrl } : {}),
          pid: process.pid,
          instanceId,
          adminKey: first.adminKey,
        }),
      );
    }
    return {
      ...first,
      instanceId,
      dataDir,
      workers,
      close: async () => {
        closing = true;
        await cleanup();
      },
    };
  } catch (err) {
    closing = true;
    await cleanup();
    throw err;
  }
}

/** Resolves with the worker's ready message; rejects when it exits first (the reason is on its stderr). */
function readyOf(worker: Worker): Promise<WorkerReady> {
  return new Promise((resolve, reject) => {
    const onExit = (code: number | null, signal: string | null) =>
      reject(
        new StartupError(`a worker stopped before it was ready (${signal ?? `code ${code}`}); its error is above`),
      );
    worker.once('exit', onExit);
    worker.once('message', (message: { ready?: WorkerReady }) => {
      worker.off('exit', onExit);
      if (message.ready) resolve(message.ready);
    });
  });
}

/** SIGTERM to every worker, then waits for all to exit (SIGKILL for one still running after 30 s). */
async function stopWorkers(): Promise<void> {
  const running = Object.values(cluster.workers ?? {}).filter((w): w is Worker => Boolean(w) && !w!.isDead());
  await Promise.all(
    running.map(
      (worker) =>
        new Promise<void>((resolve) => {
          const force = setTimeout(() => worker.process.kill('SIGKILL'), 30_000);
          worker.once('exit', () => {
            clearTimeout(force);
            resolve();
          });
          worker.process.kill('SIGTERM');
        }),
    ),
  );
}

/** In a worker process: the options its primary handed down, or undefined outside a cluster. */
export function clusterWorkerOptions(options: SandboxOptions): SandboxOptions | undefined {
  if (!cluster.isWorker || !process.env[workerEnv]) return undefined;
  const { instanceId, databaseUrl, adminKey, adminKeyDir } = JSON.parse(process.env[workerEnv]) as {
    instanceId: string;
    databaseUrl: string;
    adminKey?: string;
    adminKeyDir?: string;
  };
  return { ...options, databaseUrl, postgres: false, worker: { instanceId, adminKey, adminKeyDir } };
}

/** Tells the primary this worker serves; a worker whose primary is gone stops too. */
export function reportWorkerReady(running: RunningSandbox, stop: () => void): void {
  const { url, publicUrl, readyUrl, shared, adminKey, port, boundAddress } = running;
  process.send!({ ready: { url, publicUrl, readyUrl, shared, adminKey, port, boundAddress } satisfies WorkerReady });
  process.once('disconnect', stop);
}
