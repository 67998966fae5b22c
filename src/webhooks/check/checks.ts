import type { Db } from '../../db/database.ts';
import type { SandboxClock } from '../../schedule/clock.ts';
import type { CheckRun } from '../../shared/check-report.ts';
import { notFound } from '../../shared/problem.ts';
import { endpointSigning } from '../attempt-signing.ts';
import type { Endpoints } from '../endpoints.ts';
import type { Sender } from '../sender.ts';
import type { CheckRunner, EffectsCounter } from './runner.ts';

const effectsTimeoutMs = 5000;
/** An effects URL answers a count: more than this is refused unread (a flood must not fill memory). */
const effectsMaxBytes = 1024;

/**
 * Reads a receiver's effects URL: a GET answering its count of processed events as a bare
 * number or {"count": n} (how the duplicate case sees a delivery processed twice). At most
 * 1 KiB is read, within 5 s, through the outbound policy like every request Sandbay sends.
 */
export function effectsUrlCounter(url: string, sender: Pick<Sender, 'getSmall'>): EffectsCounter {
  return async () => {
    const res = await sender.getSmall(url, effectsMaxBytes, effectsTimeoutMs).catch((err: Error) => {
      throw new Error(`GET ${url} failed (${err.message})`);
    });
    const text = res.text.trim();
    if (res.status < 200 || res.status >= 300) throw new Error(`GET ${url} answered ${res.status}`);
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      value = undefined;
    }
    const count = typeof value === 'number' ? value : (value as { count?: unknown } | undefined)?.count;
    if (typeof count !== 'number' || !Number.isFinite(count))
      throw new Error(`GET ${url} answered ${JSON.stringify(text.slice(0, 60))}, not a number or {"count": n}`);
    return count;
  };
}

export interface StartedCheck {
  run: CheckRun;
  /** Resolves with the finished run. */
  done: Promise<CheckRun>;
}

/** Starts receiver checks of a registered endpoint (its URL and live secrets) or of a bare URL and secret. */
export class Checks {
  constructor(
    private readonly db: Db,
    private readonly clock: SandboxClock,
    private readonly endpoints: Endpoints,
    private readonly runner: CheckRunner,
    private readonly testSecret: (tenantId: string) => Promise<string>,
  ) {}

  async ofEndpoint(
    tenantId: string,
    endpointId: string,
    options: { effects?: EffectsCounter; release?: () => void } = {},
  ): Promise<StartedCheck> {
    const endpoint = await this.endpoints.get(this.db, tenantId, endpointId);
    const target = await this.endpoints.target(tenantId, endpointId);
    if (!target) throw notFound('webhook endpoint'); // deleted in between
    // Signed as the endpoint's deliveries are: its schemes, its live keys (SPEC §11).
    const { schemes, keys } = endpointSigning(target, this.clock.nowMs(tenantId));
    return this.runner.start(
      tenantId,
      {
        endpointId,
        url: target.url,
        secrets: [...keys.secrets],
        schemes,
        signingKeys: [...keys.signingKeys],
        allowInsecureTls: target.allowInsecureTls,
        topics: endpoint.topics,
      },
      options.effects,
      options.release,
    );
  }

  /**
   * A bare URL, signed with `secret` (default: the sandbox's webhookTestSecret, as a test webhook to a URL is)
   * in Sandbay's scheme or Standard Webhooks' HMAC one (an ed25519 check needs an endpoint: its key pair).
   */
  async ofUrl(
    tenantId: string,
    input: {
      url: string;
      secret?: string;
      signature?: 'sandbay' | 'standard-webhooks';
      allowInsecureTls?: boolean;
      effects?: EffectsCounter;
      release?: () => void;
    },
  ): Promise<StartedCheck> {
    const secret = input.secret ?? (await this.testSecret(tenantId));
    return this.runner.start(
      tenantId,
      {
        endpointId: null,
        url: input.url,
        secrets: [secret],
        schemes: [input.signature ?? 'sandbay'],
        signingKeys: [],
        allowInsecureTls: input.allowInsecureTls ?? false,
        topics: null,
      },
      input.effects,
      input.release,
    );
  }
}
