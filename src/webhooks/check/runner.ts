import type { Db } from '../../db/database.ts';
import type { SandboxClock } from '../../schedule/clock.ts';
import { blockedCause, type CheckCaseResult, type CheckReport, type CheckRun } from '../../shared/check-report.ts';
import { ApiError } from '../../shared/problem.ts';
import { patternMatches, topics, type Topic } from '../../shared/topics.ts';
import type { DeliveryStream } from '../delivery-stream.ts';
import type { Sender } from '../sender.ts';
import type { TenantShares } from '../outbound/shares.ts';
import { buildSample } from '../topics/samples.ts';
import { casesFor, checkCases, type CaseData, type CheckCase } from './cases.ts';
import { wordsFor } from './words.ts';
import { publicKeyOf } from '../endpoint-keys.ts';
import type { SchemeName } from '../../shared/schemes.ts';
import { buildRequest, slashToggled, type BuiltRequest, type CheckRequest } from './requests.ts';
import type { CheckStore } from './store.ts';
import { is2xx, type Answer, type Judging, type Verdict } from './verdicts.ts';

/** The receiver a check runs against: a registered endpoint or a bare URL, and the secrets it signs with. */
export interface CheckTarget {
  endpointId: string | null;
  url: string;
  /** Live secrets, newest first; the first is the run's secret. */
  secrets: string[];
  /**
   * The schemes it signs with (the endpoint's; Sandbay's for a bare URL unless asked) and, for ed25519, the live whsk_
   * keys.
   */
  schemes: SchemeName[];
  signingKeys: string[];
  allowInsecureTls: boolean;
  /** The endpoint's subscription (null for a bare URL): a real topic outside it is sent as unknown-topic too. */
  topics: string[] | null;
}

/** The receiver's count of processed events (an effects URL read, or a function in sandbay/testing). */
export type EffectsCounter = () => Promise<number>;

export interface CheckRunnerDeps {
  db: Db;
  clock: SandboxClock;
  sender: Sender;
  /** Each sandbox's share of outbound requests in flight (shared mode). */
  shares: TenantShares;
  store: CheckStore;
  stream: DeliveryStream;
  onError: (message: string) => void;
}

const emptyReport = (url: string): CheckReport => ({
  url,
  passed: 0,
  failed: 0,
  blocked: 0,
  warnings: 0,
  durationMs: 0,
  rootCause: null,
  cases: [],
});
const isAscii = (value: unknown) => !/[^\x00-\x7f]/.test(JSON.stringify(value));

/**
 * Runs the battery (./cases.ts) against a receiver: each request is signed and sent like a
 * production delivery and recorded as a delivery with trigger `check`; the report is stored
 * after every case and announced on the live stream (`check.updated`).
 */
export class CheckRunner {
  private readonly running = new Set<Promise<unknown>>();
  private stopped = false;

  constructor(private readonly deps: CheckRunnerDeps) {}

  /** Stops sending (the engine is closing) and resolves once every run has ended. */
  async stop(): Promise<void> {
    this.stopped = true;
    await Promise.allSettled([...this.running]);
  }

  /**
   * Stores a new run and starts it; `done` resolves with the finished run. `release` (the sandbox's check
   * slot) is called once its last case has run, before the run is stored as finished: a client that sees
   * it finished may start the next at once; and, whatever happens, once the run has ended.
   */
  async start(
    tenantId: string,
    target: CheckTarget,
    effects?: EffectsCounter,
    release: () => void = () => {},
  ): Promise<{ run: CheckRun; done: Promise<CheckRun> }> {
    const data = await this.caseData(tenantId, target, Boolean(effects));
    const publicKey = target.schemes.includes('standard-webhooks-ed25519')
      ? publicKeyOf(target.signingKeys[0] ?? null)
      : null;
    const run = await this.deps.store.create(tenantId, {
      endpointId: target.endpointId,
      url: target.url,
      secret: target.secrets[0],
      signature: target.schemes,
      publicKey,
      total: checkCases.length,
      report: emptyReport(target.url),
    });
    this.announce(tenantId, run.id, target.endpointId, 0, 'running');
    const done = this.execute(tenantId, run, target, data, effects, release).catch(async (err) => {
      // A run that is gone (its sandbox reset or deleted, or pruned by newer runs) simply ends.
      const gone = err instanceof ApiError && err.status === 404;
      if (!this.stopped && !gone) this.deps.onError(`check ${run.id} failed: ${(err as Error)?.stack ?? err}`);
      return this.deps.store.get(this.deps.db, tenantId, run.id).catch(() => run);
    });
    this.running.add(done);
    // Cannot reject: done catches (and reports) whatever the run threw.
    void done.finally(() => {
      this.running.delete(done);
      release();
    });
    return { run, done };
  }

  private async caseData(tenantId: string, target: CheckTarget, effects: boolean): Promise<CaseData> {
    const now = this.deps.clock.now(tenantId);
    const placed = (await buildSample(this.deps.db, tenantId, 'order.placed', now)) as Record<string, unknown>;
    const unhandled: CaseData['unhandled'] = [];
    // A real topic the endpoint did not subscribe to, preferring one whose sample is ASCII (decoding is utf8-body's
    // job).
    const outside = target.topics ? topics.filter((t) => !target.topics!.some((p) => patternMatches(p, t))) : [];
    let fallback: CaseData['unhandled'][number] | undefined;
    for (const topic of outside) {
      const sample = {
        topic,
        data: await buildSample(this.deps.db, tenantId, topic as Topic, now).catch(() => undefined),
      };
      if (sample.data === undefined) continue;
      fallback ??= sample;
      if (isAscii(sample.data)) {
        fallback = sample;
        break;
      }
    }
    if (fallback) unhandled.push(fallback);
    unhandled.push({
      topic: 'x.unknown',
      data: { note: 'A topic no receiver handles: Sandbay checks that it is acknowledged and ignored.' },
    });
    return { placed, cancelled: { ...placed, reason: 'requested_by_customer' }, unhandled, effects };
  }

  private async execute(
    tenantId: string,
    run: CheckRun,
    target: CheckTarget,
    data: CaseData,
    effects: EffectsCounter | undefined,
    release: () => void,
  ): Promise<CheckRun> {
    const started = performance.now();
    const report = emptyReport(target.url);
    const occurredAt = this.deps.clock.now(tenantId);
    // Writes (each case's deliveries, then its progress) go in order while the next requests are out.
    let writes: Promise<unknown> = Promise.resolve();
    // A failed write is thrown by `await writes` below; the chain's links are marked handled so that a run
    // ending early (its sandbox reset mid-run) leaves no unhandled rejection behind.
    const write = (fn: () => Promise<unknown>) => {
      writes = writes.then(fn);
      writes.catch(() => undefined);
      return writes;
    };
    let valid: CheckCaseResult | undefined;
    for (const c of casesFor(wordsFor(target.schemes))) {
      const result =
        valid && valid.got.status === null
          ? notSent(c, data, valid.id)
          : await this.runCase(
              tenantId,
              run.id,
              target,
              c,
              data,
              occurredAt,
              write,
              effects,
              valid && !valid.ok ? valid.id : undefined,
            );
      valid ??= result;
      report.cases.push(result);
      report.passed += result.status === 'passed' ? 1 : 0;
      report.failed += result.status === 'failed' ? 1 : 0;
      report.blocked += result.status === 'blocked' ? 1 : 0;
      report.warnings += result.warning ? 1 : 0;
      if (!valid.ok)
        report.rootCause = {
          caseId: valid.id,
          cause: valid.cause,
          blocks: report.cases.filter((x) => x.blockedBy).map((x) => x.id),
        };
      report.durationMs = Math.round(performance.now() - started);
      const finished = report.cases.length === checkCases.length;
      if (finished) release();
      const snapshot = structuredClone(report);
      // Cannot reject: execute awaits the chain (`await writes`), so a failed write fails the run.
      void write(async () => {
        await this.deps.store.progress(tenantId, run.id, snapshot, checkCases.length, finished);
        this.announce(tenantId, run.id, target.endpointId, snapshot.cases.length, finished ? 'finished' : 'running');
      });
    }
    await writes;
    return this.deps.store.get(this.deps.db, tenantId, run.id);
  }

  /**
   * Sends a case's requests and judges the answers; `blocker` is the failed case whose failure makes a refusal
   * meaningless.
   */
  private async runCase(
    tenantId: string,
    runId: string,
    target: CheckTarget,
    c: CheckCase,
    data: CaseData,
    occurredAt: Date,
    write: (fn: () => Promise<unknown>) => Promise<unknown>,
    effects?: EffectsCounter,
    blocker?: string,
  ): Promise<CheckCaseResult> {
    const deliveryIds: string[] = [];
    const attempts = new Map<string, number>();
    let previous: BuiltRequest | undefined;
    const send = async (request: CheckRequest): Promise<Answer> => {
      if (this.stopped) throw new Error('the engine is closing');
      // The sandbox's outbound turn (shared mode) first: the request is signed as it goes out.
      const release = await this.deps.shares.request(tenantId);
      const signing = { schemes: target.schemes, keys: { secrets: target.secrets, signingKeys: target.signingKeys } };
      const built = buildRequest(request, {
        tenantId,
        signing,
        now: Math.floor(this.deps.clock.real() / 1000),
        occurredAt,
        previous,
      });
      previous = built;
      const startedAt = this.deps.clock.now(tenantId);
      const url = request.slashToggled ? slashToggled(target.url) : target.url;
      const outcome = await this.deps.sender
        .send({ url, headers: built.headers, body: built.body, allowInsecureTls: target.allowInsecureTls })
        .finally(release);
      const number = (attempts.get(built.deliveryId) ?? 0) + 1;
      attempts.set(built.deliveryId, number);
      if (number === 1) deliveryIds.push(built.deliveryId);
      // Cannot reject: execute awaits the chain (`await writes`), so a failed write fails the run.
      void write(() => this.record(tenantId, runId, c.id, { ...target, url }, built, number, startedAt, outcome));
      return {
        deliveryId: built.deliveryId,
        url,
        status: outcome.status,
        ms: outcome.durationMs,
        error: outcome.error,
        body: outcome.body,
        headers: outcome.headers,
        sent: { body: built.body, timestamp: built.timestamp },
      };
    };
    const count = async (): Promise<number | { error: string }> =>
      effects!().catch((err: Error) => ({ error: err.message ?? String(err) }));
    const before = c.countsEffects && effects ? await count() : undefined;
    const answers: Answer[] = [];
    for (const request of c.requests(data)) answers.push(await send(request));
    const after = before !== undefined ? await count() : undefined;
    const refused = answers.find((a) => !is2xx(a));
    // While a correct delivery is refused, a refusal scores nothing: only an acceptance says something (of a bad
    // request, a real failure).
    if (blocker && (c.rejects ? answers.every((a) => !is2xx(a)) : refused)) {
      const got = refused ?? answers[0];
      return {
        id: c.id,
        ok: false,
        status: 'blocked',
        blockedBy: blocker,
        warning: false,
        verified: true,
        expected: c.expected(data),
        got: { status: got.status, ms: got.ms, error: got.error },
        cause: blockedCause(blocker, true),
        fix: '',
        deliveryIds,
      };
    }
    const judging: Judging = { answers, probe: send, effects: effectsDelta(before, after), secrets: target.secrets };
    const verdict: Verdict = await c.judge(judging, data);
    const got = verdict.decisive ?? answers[0];
    return {
      id: c.id,
      ok: verdict.ok,
      status: verdict.ok ? 'passed' : 'failed',
      blockedBy: null,
      warning: Boolean(verdict.warning),
      // A case about effects (the duplicate) without an effects source judged the answers alone.
      verified: !(c.countsEffects && !effects),
      expected: c.expected(data),
      got: { status: got.status, ms: got.ms, error: got.error },
      cause: verdict.ok ? '' : (verdict.cause ?? ''),
      fix: verdict.ok ? '' : (verdict.fix ?? ''),
      deliveryIds,
    };
  }

  private async record(
    tenantId: string,
    runId: string,
    caseId: string,
    target: CheckTarget,
    built: BuiltRequest,
    number: number,
    startedAt: Date,
    outcome: Awaited<ReturnType<Sender['send']>>,
  ): Promise<void> {
    const recorded = await this.deps.store.recordAttempt(tenantId, {
      runId,
      caseId,
      endpointId: target.endpointId,
      url: target.url,
      deliveryId: built.deliveryId,
      number,
      topic: built.topic,
      data: built.data,
      body: built.body,
      signatureHeader: built.signatureHeader,
      signatureHeaders: built.signatureHeaders,
      signature: target.schemes,
      startedAt,
      outcome,
    });
    if (!recorded) return;
    const { stream } = this.deps;
    const status = outcome.ok ? 'succeeded' : 'dead';
    if (number === 1)
      stream.publish(tenantId, 'delivery.created', {
        id: built.deliveryId,
        topic: built.topic,
        endpointId: target.endpointId,
        status: 'pending',
        check: true,
      });
    stream.publish(tenantId, 'attempt.finished', {
      id: built.deliveryId,
      number,
      trigger: 'check',
      responseStatus: outcome.status,
      error: outcome.error,
      durationMs: outcome.durationMs,
    });
    stream.publish(tenantId, 'delivery.updated', {
      id: built.deliveryId,
      status,
      attemptCount: number,
      nextAttemptAt: null,
    });
  }

  private announce(
    tenantId: string,
    id: string,
    endpointId: string | null,
    done: number,
    status: CheckRun['status'],
  ): void {
    this.deps.stream.publish(tenantId, 'check.updated', {
      id,
      endpointId,
      done,
      total: checkCases.length,
      runStatus: status,
    });
  }
}

function effectsDelta(
  before: number | { error: string } | undefined,
  after: number | { error: string } | undefined,
): Judging['effects'] {
  if (before === undefined || after === undefined) return undefined;
  if (typeof before !== 'number') return before;
  if (typeof after !== 'number') return after;
  return { before, after };
}

/** A case not sent at all: the receiver did not answer `valid`. */
function notSent(c: CheckCase, data: CaseData, by: string): CheckCaseResult {
  return {
    id: c.id,
    ok: false,
    status: 'blocked',
    blockedBy: by,
    warning: false,
    verified: true,
    expected: c.expected(data),
    got: { status: null, ms: 0, error: 'not sent: the receiver did not answer a correct delivery' },
    cause: blockedCause(by, false),
    fix: '',
    deliveryIds: [],
  };
}
