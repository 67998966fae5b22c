import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startSandbox } from '../../src/server/start.ts';
import { keptPerCatcher } from '../../src/webhooks/catcher/request-log.ts';
import { responseExcerptBytes } from '../../src/webhooks/sender.ts';
import { FlakyReceiver } from './flaky-receiver.ts';
import { countLedger, endpointsPerSandbox, finishedDeliveries, type Ledger } from './ledger.ts';
import {
  advanceClock,
  catcherHit,
  freshToken,
  orderRound,
  resetSandbox,
  setUpSandbox,
  SteadyLoad,
  type SoakSandbox,
} from './load.ts';
import { attributeMemory, trackWasmMemories } from '../bench/memory-attribution.ts';
import { mb, SoakMetrics } from './metrics.ts';
import { SseClients } from './sse-clients.ts';

export interface SoakOptions {
  durationMs: number;
  /** Order rounds (create, read, cancel) per second over all sandboxes. */
  ordersPerSecond: number;
  catcherHitsPerSecond: number;
  tokensPerSecond: number;
  sseClients: number;
  /** Of the SSE clients, how many never read their socket. */
  nonReaders: number;
  ledgerSandboxes: number;
  /** Sandboxes reset every `resetEveryMs` (kept out of the ledger: a reset deletes deliveries by design). */
  churnSandboxes: number;
  advanceEveryMs: number;
  /** How far each advance moves a ledger sandbox's clock (retries fall due at 30 s, 2 min, 10 min, 1 h). */
  clockStepSeconds: number;
  resetEveryMs: number;
  reportEveryMs: number;
  rssBoundBytes: number;
  /** The engine's per-attempt timeout: how long a hung attempt holds a slot. */
  attemptTimeoutMs: number;
  print: (line: string) => void;
  /** Run on this PostgreSQL database instead of PGlite in a temporary data dir. */
  databaseUrl?: string;
}

export const fullSoak: Omit<SoakOptions, 'durationMs' | 'print'> = {
  ordersPerSecond: 8,
  catcherHitsPerSecond: 15,
  tokensPerSecond: 2,
  sseClients: 50,
  nonReaders: 10,
  ledgerSandboxes: 4,
  churnSandboxes: 2,
  advanceEveryMs: 30_000,
  clockStepSeconds: 75 * 60,
  resetEveryMs: 45_000,
  reportEveryMs: 60_000,
  rssBoundBytes: 600 * 1024 * 1024,
  attemptTimeoutMs: 1_000,
};

export interface SoakReport {
  ledger: Ledger;
  maxRssBytes: number;
  rssBoundBytes: number;
  errors: Map<string, number>;
  /** What the engine's bounded structures held at the end. */
  bounded: {
    maxAttemptBody: number;
    sseSubscribers: number;
    sseDropped: number;
    cachedTokens: number;
    maxCatcherLog: number;
    catcherHits: number;
  };
  ok: boolean;
}

const rate = (n: number, ms: number) => (n / (ms / 1000)).toFixed(1);

/** Keeps one engine busy for `durationMs` and reports its memory and where every delivery went (issue 14 §2). */
export async function runSoak(o: SoakOptions): Promise<SoakReport> {
  const dataDir = await mkdtemp(join(tmpdir(), 'sandbay-soak-'));
  trackWasmMemories(); // before the engine makes PGlite's, so each report can say what it holds
  const metrics = new SoakMetrics();
  const receiver = new FlakyReceiver();
  const receiverUrl = await receiver.start();
  const rounds = Math.ceil((o.ordersPerSecond * o.durationMs) / 1000);
  const engine = await startSandbox({
    dataDir,
    databaseUrl: o.databaseUrl,
    port: 0,
    logRequests: false,
    attemptTimeoutMs: o.attemptTimeoutMs,
    // The ledger counts rows, so none may be pruned during the run: room for every delivery of a run.
    maxDeliveriesPerSandbox: Math.max(10_000, rounds * endpointsPerSandbox * 2),
    logger: {
      info: () => {},
      warn: (l) => metrics.error(`engine warning: ${l.slice(0, 60)}`),
      error: (l) => metrics.error(`engine error: ${l.slice(0, 60)}`),
    },
  });
  const { url, services } = engine;
  const sandboxes: SoakSandbox[] = [];
  for (let i = 0; i < o.ledgerSandboxes + o.churnSandboxes; i++)
    sandboxes.push(await setUpSandbox(url, receiverUrl, i < o.ledgerSandboxes));
  const ledgerSandboxes = sandboxes.filter((s) => s.ledger);
  const churn = sandboxes.filter((s) => !s.ledger);
  const sse = new SseClients(metrics);
  for (let i = 0; i < o.sseClients; i++) {
    const sb = sandboxes[i % sandboxes.length];
    if (i < o.nonReaders) sse.startNonReader({ url, token: sb.token });
    else sse.startReader({ url, token: sb.token });
  }

  const load = new SteadyLoad(metrics);
  const pick = (i: number) => sandboxes[i % sandboxes.length];
  load.every('orders', o.ordersPerSecond, 200, (i) => orderRound(url, pick(i), metrics));
  // One catcher takes every direct hit (thousands in a full run): its log must stay at its cap. The
  // others each get their sandbox's order.placed deliveries.
  load.every('catcher', o.catcherHitsPerSecond, 200, (i) => catcherHit(url, sandboxes[0], i, metrics));
  load.every('tokens', o.tokensPerSecond, 50, (i) => freshToken(url, pick(i), metrics));
  load.periodically('clock advances', o.advanceEveryMs, async () => {
    await Promise.all(ledgerSandboxes.map((sb) => advanceClock(url, sb, o.clockStepSeconds, metrics)));
  });
  load.periodically('resets', o.resetEveryMs, async () => {
    for (const sb of churn) await resetSandbox(url, sb, metrics);
  });

  const started = Date.now();
  o.print(`engine ready, ${sandboxes.length} sandboxes set up`);
  let last = { at: started, requests: 0, finished: 0, hits: 0 };
  const report = async () => {
    const m = metrics.sampleMemory(true);
    const now = Date.now();
    const finished = await finishedDeliveries(services.db, sandboxes);
    const ms = now - last.at;
    const retained = 'gc' in globalThis ? ' after GC' : '';
    const elapsed = new Date(now - started).toISOString().slice(14, 19);
    o.print(
      `[${elapsed}] rss ${mb(m.rss)}  heap${retained} ${mb(m.heapUsed)}/${mb(m.heapTotal)}  external ${mb(m.external)} | ` +
        `${rate(metrics.requests - last.requests, ms)} req/s  ${rate(finished - last.finished, ms)} deliveries/s  ` +
        `${rate(receiver.hits - last.hits, ms)} receiver hits/s | sse ${sse.open} open, ${services.webhooks.stream.dropped} dropped | ` +
        `errors: ${metrics.errorSummary()}`,
    );
    const owners = attributeMemory().owners.map((o) => `${o.owner} ${o.mb.toFixed(0)} MB`);
    o.print(`  rss by owner: ${owners.join(', ')}`);
    last = { at: now, requests: metrics.requests, finished, hits: receiver.hits };
  };
  const sampler = setInterval(() => metrics.sampleMemory(), 1000);
  const reporter = setInterval(() => void report().catch((err) => metrics.error(`report: ${err}`)), o.reportEveryMs);
  await new Promise((r) => setTimeout(r, o.durationMs));
  clearInterval(reporter);
  await report();
  const stopping = Date.now();
  const busy = load.busy;
  const stopped = load.stop();
  receiver.calm();
  const waiting = setInterval(() => o.print(`stopping: still under way: ${load.busy}`), 15_000);
  await stopped;
  clearInterval(waiting);
  o.print(`load stopped: ${busy} under way, done in ${((Date.now() - stopping) / 1000).toFixed(1)} s`);
  clearInterval(sampler);

  const ledger = await countLedger(services.db, sandboxes);
  const catcherLogs = await services.db.query<{ n: number }>(
    'select count(*)::int as n from catcher_requests where tenant_id = any($1) group by tenant_id, catcher_name',
    [sandboxes.map((s) => s.id)],
  );
  const [attemptBodies] = await services.db.query<{ n: number | null }>(
    'select max(octet_length(response_body))::int as n from attempts where tenant_id = any($1)',
    [sandboxes.map((s) => s.id)],
  );
  const bounded = {
    maxAttemptBody: attemptBodies.n ?? 0,
    sseSubscribers: services.webhooks.stream.subscriberCount,
    sseDropped: services.webhooks.stream.dropped,
    cachedTokens: services.tokens.cachedCount,
    maxCatcherLog: Math.max(0, ...catcherLogs.map((r) => r.n)),
    catcherHits: metrics.done.get('catcher hit') ?? 0,
  };
  sse.stop();
  await engine.close();
  await receiver.close();
  await rm(dataDir, { recursive: true, force: true });

  const ok =
    ledger.lost === 0 &&
    metrics.maxRssBytes <= o.rssBoundBytes &&
    bounded.maxCatcherLog <= keptPerCatcher &&
    bounded.maxAttemptBody <= responseExcerptBytes;
  o.print(
    `ledger: ${ledger.emitted} emitted = ${ledger.succeeded} succeeded + ${ledger.pending} pending + ${ledger.dead} dead (${ledger.attempts} attempts); ` +
      `lost ${ledger.lost}${ledger.unacknowledged ? ` (${ledger.unacknowledged} more from unanswered orders)` : ''}`,
  );
  o.print(
    `rss peak ${mb(metrics.maxRssBytes)}, VmHWM ${attributeMemory().peakMb.toFixed(0)} MB (bound ${mb(o.rssBoundBytes)}: ${metrics.maxRssBytes <= o.rssBoundBytes ? 'under' : 'OVER'}), heap peak ${mb(metrics.maxHeapBytes)}`,
  );
  o.print(
    `bounded: ${bounded.catcherHits} catcher hits, longest catcher log ${bounded.maxCatcherLog}/${keptPerCatcher}, largest attempt body ${bounded.maxAttemptBody}/${responseExcerptBytes} B, ${bounded.cachedTokens} cached tokens, sse ${bounded.sseSubscribers} subscribed, ${bounded.sseDropped} dropped`,
  );
  o.print(`errors: ${metrics.errorSummary()}`);
  o.print(`slowest answers: ${metrics.slowestSummary()}`);
  return {
    ledger,
    maxRssBytes: metrics.maxRssBytes,
    rssBoundBytes: o.rssBoundBytes,
    errors: metrics.errors,
    bounded,
    ok,
  };
}
