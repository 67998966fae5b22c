/**
 * `sandbay/testing`: Sandbay inside a user's own test suite. Start an in-process sandbox
 * (memory PGlite, a port of its own), sign test webhooks, run the receiver check against
 * the receiver under test — the same battery and report as `sandbay check` —, replay recorded
 * fixtures re-signed with the receiver's own secret, and wait for deliveries of a running Sandbay.
 */
import type { CheckReport } from '../shared/check-report.ts';
import type { RunningSandbox } from '../server/start.ts';
import { deliveries, waitForDelivery, type DeliveryFilter, type WaitOptions } from './deliveries.ts';

export type { CheckCaseResult, CheckReport } from '../shared/check-report.ts';
/** The X-Service-Signature value Sandbay would send for a body: the receiver kit's own helper. */
export { signTestHeader } from '../receiver/testing.ts';
export type { Delivery, DeliverySummary } from '../shared/api-types.ts';
export type { Fixture, FixturesFile } from '../shared/fixtures.ts';
export {
  loadFixtures,
  replayFixtures,
  type ReplayOptions,
  type ReplayResult,
  type ReplayScheme,
} from '../receiver/fixtures-replay.ts';
export {
  deliveries,
  waitForDelivery,
  type DeliveryFilter,
  type SandbayConnection,
  type WaitOptions,
} from './deliveries.ts';

export interface StartSandboxOptions {
  /** Per-attempt webhook timeout (default SPEC's 10 s); tests may shorten it. */
  attemptTimeoutMs?: number;
}

/** A running engine with one seeded sandbox, ready to call. */
export interface TestingSandbox {
  /** The engine's base URL, e.g. http://127.0.0.1:41234 (API under /api/v1). */
  url: string;
  sandboxId: string;
  /** A bearer token with every scope. */
  token: string;
  /** Signs test webhooks sent to a bare URL. */
  webhookTestSecret: string;
  /** The in-process engine (its services), for tests that want to look inside. */
  engine: RunningSandbox;
  /** Runs the receiver check as this sandbox; its deliveries go to this sandbox's log. */
  checkReceiver(options: CheckReceiverOptions): Promise<CheckReport>;
  /** This sandbox's newest deliveries matching a filter (see `deliveries`). */
  deliveries(filter?: DeliveryFilter): ReturnType<typeof deliveries>;
  /** Waits for a delivery of this sandbox matching a filter (see `waitForDelivery`). */
  waitForDelivery(
    filter: DeliveryFilter,
    options?: Pick<WaitOptions, 'timeout' | 'intervalMs'>,
  ): ReturnType<typeof waitForDelivery>;
  /** Stops the engine and removes its scratch database. */
  close(): Promise<void>;
}

/**
 * Starts Sandbay in this process on an in-memory database, with a fresh sandbox and a token. The engine
 * (Koa, PGlite) is loaded here, on first use: a suite that only waits for deliveries never loads it.
 */
export async function startSandbox(options: StartSandboxOptions = {}): Promise<TestingSandbox> {
  const [{ startSandbox: startEngine }, { silentLogger }] = await Promise.all([
    import('../server/start.ts'),
    import('../server/log.ts'),
  ]);
  const engine = await startEngine({
    memory: true,
    port: 0,
    logRequests: false,
    logger: silentLogger,
    attemptTimeoutMs: options.attemptTimeoutMs,
  });
  try {
    const created = await engine.services.sandboxes.create();
    const sandboxId = created.sandbox.id;
    return {
      url: engine.url,
      sandboxId,
      token: created.credentials.accessToken,
      webhookTestSecret: created.webhookTestSecret,
      engine,
      checkReceiver: (check) => runCheck(engine, sandboxId, check),
      deliveries: (filter = {}) => deliveries(filter, { url: engine.url, token: created.credentials.accessToken }),
      waitForDelivery: (filter, wait = {}) =>
        waitForDelivery(filter, { ...wait, url: engine.url, token: created.credentials.accessToken }),
      close: () => engine.close(),
    };
  } catch (err) {
    await engine.close();
    throw err;
  }
}

export interface CheckReceiverOptions {
  /** The receiver under test. */
  url: string;
  /** The secret it verifies with. */
  secret: string;
  /** How to sign: Sandbay's scheme (default) or Standard Webhooks' HMAC one (SPEC §11). */
  signature?: 'sandbay' | 'standard-webhooks';
  /**
   * Its count of processed events: a function, or a URL answering a number or {"count": n}; the duplicate case then
   * checks it rose by one.
   */
  effects?: (() => number | Promise<number>) | string;
  /** Accept a self-signed certificate on an https receiver. */
  allowInsecureTls?: boolean;
  /** Run in this sandbox (its log keeps the deliveries); by default a private one is started and closed. */
  sandbox?: TestingSandbox;
}

/** Runs the battery against a receiver and resolves with the report `sandbay check --json` prints. */
export async function checkReceiver(options: CheckReceiverOptions): Promise<CheckReport> {
  if (options.sandbox) return options.sandbox.checkReceiver(options);
  const sandbox = await startSandbox();
  try {
    return await sandbox.checkReceiver(options);
  } finally {
    await sandbox.close();
  }
}

async function runCheck(
  engine: RunningSandbox,
  sandboxId: string,
  options: CheckReceiverOptions,
): Promise<CheckReport> {
  const { effects } = options;
  const { effectsUrlCounter } = await import('../webhooks/check/checks.ts');
  const counter =
    typeof effects === 'string'
      ? effectsUrlCounter(effects, engine.services.webhooks.sender)
      : effects
        ? async () => effects()
        : undefined;
  const { done } = await engine.services.webhooks.checks.ofUrl(sandboxId, {
    url: options.url,
    secret: options.secret,
    signature: options.signature,
    allowInsecureTls: options.allowInsecureTls,
    effects: counter,
  });
  return (await done).report;
}
