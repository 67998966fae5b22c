import { createHash } from 'node:crypto';
import type { Queryable } from '../../db/database.ts';
import type { AmbientDb } from '../../db/ambient.ts';
import { randomString } from '../../shared/ids.ts';
import { ApiError, problemBody } from '../../shared/problem.ts';
import type { RouteResult } from '../route.ts';
import { IdempotencyTable, type KeyRow, type KeyScope } from './idempotency-table.ts';

const windowMs = 24 * 3600_000;
const maxKeyLength = 255;

/** JSON with sorted keys, so {"a":1,"b":2} and {"b":2,"a":1} compare equal (SPEC §2). */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value && typeof value === 'object') {
    const entries = Object.keys(value)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonicalJson((value as Record<string, unknown>)[k])}`);
    return `{${entries.join(',')}}`;
  }
  return JSON.stringify(value);
}

export interface IdempotencyRequest extends KeyScope {
  body: unknown;
}

/** How a route's handler meets its Idempotency-Key. */
export interface IdempotencyMode {
  /**
   * True: the handler's writes and the stored response are one transaction. False (routes that
   * await the network): the handler runs on its own and its response is stored afterwards.
   */
  atomic: boolean;
  /** Top-level response fields never stored (secrets kept only hashed): a replay omits them. */
  secretFields?: readonly string[];
}

export interface IdempotencyOptions {
  /** The real clock (idempotency windows use it, SPEC §5.5). */
  realNow?: () => number;
  /** A claim this old with no response was left by a process that died: another request takes it over. */
  abandonedAfterMs?: number;
}

type Outcome = { result: RouteResult } | { error: ApiError };

/** How long a request waits for a racing atomic request on the same key before answering 409 in use. */
const atomicWaitMs = 2_000;

const inUse = () =>
  new ApiError(409, 'idempotency_key_in_use', 'A request with this Idempotency-Key is still being processed.');

/**
 * Stripe-style Idempotency-Key: within 24 real hours the same key and body replay the first
 * response (2xx and 4xx; a 5xx is not stored, so a retry runs again); the same key with another
 * body is 409. The key is claimed with a row before the handler runs, so requests racing on one
 * key — in this process or another engine's — run the handler once: the others get 409
 * idempotency_key_in_use while it runs, and the replay once it has answered.
 */
export class IdempotencyKeys {
  private readonly table: IdempotencyTable;
  private readonly realNow: () => number;
  private readonly abandonedAfterMs: number;

  constructor(
    private readonly db: AmbientDb,
    options: IdempotencyOptions = {},
  ) {
    this.table = new IdempotencyTable(db);
    this.realNow = options.realNow ?? Date.now;
    this.abandonedAfterMs = options.abandonedAfterMs ?? 5 * 60_000;
  }

  async run(
    req: IdempotencyRequest,
    handler: () => Promise<RouteResult>,
    mode: IdempotencyMode = { atomic: true },
  ): Promise<RouteResult> {
    if (req.key.length > maxKeyLength) {
      throw new ApiError(422, 'validation_failed', `Idempotency-Key is limited to ${maxKeyLength} characters.`, {
        errors: [{ path: '/headers/Idempotency-Key', message: `At most ${maxKeyLength} characters.` }],
      });
    }
    const bodyHash = createHash('sha256').update(canonicalJson(req.body)).digest('hex');
    const claim = await this.claim(req, bodyHash, mode.atomic);
    if ('replay' in claim) return claim.replay;
    const outcome = await (mode.atomic
      ? this.runInOneTransaction(req, claim.token, handler, mode)
      : this.runThenStore(req, claim.token, handler, mode));
    if ('error' in outcome) throw outcome.error;
    return outcome.result;
  }

  /** Deletes the keys past their 24 h window; returns how many. */
  purgeExpired(): Promise<number> {
    return this.table.purge(new Date(this.realNow() - windowMs));
  }

  /** Purges expired keys every `everyMs` until the returned stop function is called. */
  startPurging(everyMs = 3600_000, onError: (err: unknown) => void = () => {}): () => void {
    const timer = setInterval(() => void this.purgeExpired().catch(onError), everyMs);
    timer.unref();
    return () => clearInterval(timer);
  }

  private async claim(
    req: IdempotencyRequest,
    bodyHash: string,
    atomic: boolean,
  ): Promise<{ token: string } | { replay: RouteResult }> {
    const token = randomString(16);
    // An atomic handler is one short transaction: a racer waits for its answer and replays it, as it
    // did behind PGlite's one connection; on PostgreSQL (several connections) it polls for it, briefly.
    const waitUntil = atomic ? Date.now() + atomicWaitMs : 0;
    // A claim released between our insert and our read is claimed again (twice at most).
    for (let tries = 0; tries < 3; tries++) {
      const now = this.realNow();
      const at = {
        now: new Date(now),
        expiredBefore: new Date(now - windowMs),
        abandonedBefore: new Date(now - this.abandonedAfterMs),
      };
      if (await this.table.claim(req, bodyHash, token, at)) return { token };
      const row = await this.table.find(req);
      if (!row) continue;
      if (row.body_hash !== bodyHash) {
        throw new ApiError(
          409,
          'idempotency_key_reused',
          'This Idempotency-Key was already used with a different body.',
        );
      }
      if (row.status === null || row.response === null) {
        if (Date.now() >= waitUntil) throw inUse();
        await new Promise((resolve) => setTimeout(resolve, 10));
        tries--;
        continue;
      }
      return { replay: replayOf(row) };
    }
    throw inUse();
  }

  /** The handler's writes and the stored response commit together: a crash between them leaves neither. */
  private async runInOneTransaction(
    req: KeyScope,
    token: string,
    handler: () => Promise<RouteResult>,
    mode: IdempotencyMode,
  ): Promise<Outcome> {
    try {
      return await this.db.ambient(
        () => settle(handler),
        async (tx, outcome) => {
          // Another request took the claim over: undo ours.
          if (!(await this.keep(tx, req, token, outcome, mode))) throw inUse();
          return outcome;
        },
      );
    } catch (err) {
      await this.table.release(this.db, req, token).catch(() => {});
      throw err;
    }
  }

  /**
   * For handlers that await the network, which no transaction may span: a crash after the
   * handler and before the store lets a retry run it again once the claim is abandoned (an
   * attempt sent twice, which webhooks' at-least-once delivery allows anyway).
   */
  private async runThenStore(
    req: KeyScope,
    token: string,
    handler: () => Promise<RouteResult>,
    mode: IdempotencyMode,
  ): Promise<Outcome> {
    try {
      const outcome = await settle(handler);
      await this.keep(this.db, req, token, outcome, mode);
      return outcome;
    } catch (err) {
      await this.table.release(this.db, req, token).catch(() => {});
      throw err;
    }
  }

  /** Stores a 2xx/4xx response under the claim (a 5xx gives the claim up); false when the claim was lost. */
  private async keep(
    q: Queryable,
    req: KeyScope,
    token: string,
    outcome: Outcome,
    mode: IdempotencyMode,
  ): Promise<boolean> {
    const status = 'error' in outcome ? outcome.error.status : (outcome.result.status ?? 200);
    if (status >= 500) {
      await this.table.release(q, req, token);
      return true;
    }
    const body = 'error' in outcome ? problemBody(outcome.error) : (outcome.result.body ?? null);
    const { stored, omitted } = withoutSecrets(body, mode.secretFields ?? []);
    return this.table.save(q, req, token, status, stored, omitted);
  }
}

/** Runs the handler; a refusal (4xx) is an outcome to store and replay, anything else propagates. */
async function settle(handler: () => Promise<RouteResult>): Promise<Outcome> {
  try {
    return { result: await handler() };
  } catch (err) {
    if (err instanceof ApiError && err.status < 500) return { error: err };
    throw err;
  }
}

/** The body to store: the secret fields it has taken out, and their names. */
function withoutSecrets(body: unknown, secretFields: readonly string[]): { stored: unknown; omitted: string[] } {
  if (!body || typeof body !== 'object' || Array.isArray(body)) return { stored: body, omitted: [] };
  const omitted = secretFields.filter((field) => field in body);
  if (omitted.length === 0) return { stored: body, omitted };
  const stored = Object.fromEntries(Object.entries(body).filter(([field]) => !omitted.includes(field)));
  return { stored, omitted };
}

function replayOf(row: KeyRow): RouteResult {
  const headers: Record<string, string> = { 'Idempotent-Replayed': 'true' };
  // The first response showed these once; the stored copy never held them
  // (docs/decisions/replays-never-hold-a-secret-sandbay-keeps-hashed.md).
  if (row.omitted?.length) headers['Idempotent-Omitted'] = row.omitted.join(', ');
  return { status: row.status!, body: JSON.parse(row.response!), headers };
}
