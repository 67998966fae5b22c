import type { Db } from '../db/database.ts';
import type { SandboxClock } from '../schedule/clock.ts';
import type { Scheduler } from '../schedule/scheduler.ts';
import { ApiError, illegalTransition } from '../shared/problem.ts';
import { didYouMean, suggestTopics } from '../shared/suggest.ts';
import { isTopic, type Topic } from '../shared/topics.ts';
import { getDelivery, type DeliveryDetail } from './deliveries.ts';
import { attemptJob, type Dispatcher } from './dispatcher.ts';
import type { EndpointInput } from './endpoint-input.ts';
import type { Endpoints } from './endpoints.ts';
import type { Outbox, QueuedDelivery, Target } from './outbox.ts';
import type { SchemeName } from '../shared/schemes.ts';
import type { EnabledEndpoints, EndpointDisabled } from '../shared/api-types.ts';
import { buildSample } from './topics/samples.ts';
import { customiseSample, type SampleChanges } from './topics/customise.ts';
import { resendDelivery, type ResendRequest } from './resend.ts';

/** 422 unknown_topic for a name that is not one of the 33, with the topics it most likely meant. */
export const unknownTopic = (topic: string, path = '/topic') => {
  const suggestions = suggestTopics(topic);
  const hint = didYouMean(suggestions);
  return new ApiError(422, 'unknown_topic', `Unknown topic ${topic}.${hint} See GET /api/v1/webhooks/topics.`, {
    errors: [{ path, message: `Not one of the 33 topics.${hint}` }],
    extra: { suggestions },
  });
};

/** 409: an attempt of the delivery holds its lease, on this engine or another. */
const attemptInFlight = () =>
  new ApiError(409, 'attempt_in_flight', 'An attempt of this delivery is in flight; wait for it to finish.');

/** The webhook operations behind the API and the CLI: endpoints, retries, replays, tests. */
export class WebhookService {
  constructor(
    private readonly db: Db,
    private readonly clock: SandboxClock,
    private readonly scheduler: Scheduler,
    readonly endpoints: Endpoints,
    private readonly dispatcher: Dispatcher,
    private readonly outbox: Outbox,
  ) {}

  async updateEndpoint(tenantId: string, id: string, patch: Partial<EndpointInput>) {
    const { endpoint, enabledNow } = await this.endpoints.update(tenantId, id, patch);
    if (enabledNow) await this.dispatcher.resumeEndpoint(tenantId, id);
    return endpoint;
  }

  /**
   * Enables every endpoint disabled for `reason` in one action (what an import paused), oldest first, each as
   * PATCH enabled:true does (its pending deliveries resume). One whose URL `refusal` objects to stays off.
   */
  async enableDisabled(
    tenantId: string,
    reason: EndpointDisabled['reason'],
    refusal: (url: string) => Promise<string | undefined>,
  ): Promise<EnabledEndpoints> {
    const off = await this.db.query<{ id: string; url: string }>(
      `select id, url from webhook_endpoints where tenant_id = $1 and not enabled and coalesce(disabled_reason, 'user') = $2
        order by created_at, id`,
      [tenantId, reason],
    );
    const result: EnabledEndpoints = { enabled: [], refused: [] };
    for (const { id, url } of off) {
      const refused = await refusal(url);
      if (refused) result.refused.push({ endpointId: id, url, message: refused });
      else result.enabled.push(await this.updateEndpoint(tenantId, id, { enabled: true }));
    }
    return result;
  }

  async deleteEndpoint(tenantId: string, id: string): Promise<void> {
    await this.endpoints.remove(tenantId, id);
    await this.dispatcher.endpointDeleted(tenantId, id);
  }

  /** Attempts a pending delivery now, in the next slot of its retry cycle (SPEC §5.3). */
  async retryNow(tenantId: string, id: string): Promise<DeliveryDetail> {
    const state = await this.dispatcher.loadState(tenantId, id);
    if (!state) throw new ApiError(404, 'not_found', 'No such delivery.');
    if (state.status !== 'pending') throw illegalTransition('delivery', state.status, 'retry');
    await this.assertAttemptable(tenantId, id, state.endpointId);
    // The wake-up for this slot is void now (one on another engine finds the slot taken when it fires).
    this.scheduler.cancel(attemptJob, tenantId, id);
    const result = await this.dispatcher.attempt(state, 'manual', this.clock.nowMs(tenantId), {
      statuses: ['pending'],
      attemptCount: state.attemptCount,
    });
    if (result.skipped === 'in_flight') throw attemptInFlight();
    return getDelivery(this.db, tenantId, id);
  }

  /**
   * Replays a delivery from the DLQ: dead ones only, so replaying "from the DLQ" never
   * re-sends a delivery that already succeeded by mistake (409 delivery_not_dead says how to).
   */
  async replayDead(tenantId: string, id: string): Promise<DeliveryDetail> {
    const state = await this.dispatcher.loadState(tenantId, id);
    if (!state) throw new ApiError(404, 'not_found', 'No such delivery.');
    if (state.status !== 'dead') {
      const route = state.status === 'pending' ? 'retry' : 'replay';
      throw new ApiError(
        409,
        'delivery_not_dead',
        `Delivery ${id} is ${state.status}, not in the DLQ. To attempt it anyway: POST /api/v1/webhooks/deliveries/${id}/${route} (sandbay resend ${id}).`,
        {
          extra: { currentStatus: state.status },
        },
      );
    }
    return this.replay(tenantId, id);
  }

  /** One extra attempt of a dead or succeeded delivery, outside the retry cycle. */
  async replay(tenantId: string, id: string): Promise<DeliveryDetail> {
    const state = await this.dispatcher.loadState(tenantId, id);
    if (!state) throw new ApiError(404, 'not_found', 'No such delivery.');
    if (state.status === 'pending') {
      throw new ApiError(
        409,
        'delivery_pending',
        'This delivery is still in its retry cycle; use /retry to attempt it now.',
        {
          extra: { currentStatus: 'pending' },
        },
      );
    }
    await this.assertAttemptable(tenantId, id, state.endpointId);
    const result = await this.dispatcher.attempt(state, 'replay', this.clock.nowMs(tenantId), {
      statuses: ['dead', 'succeeded'],
      attemptCount: state.attemptCount,
    });
    if (result.skipped === 'in_flight') throw attemptInFlight();
    return getDelivery(this.db, tenantId, id);
  }

  private resendDeps() {
    return { db: this.db, clock: this.clock, endpoints: this.endpoints, outbox: this.outbox };
  }

  /** Edit and resend (issue 31): a new delivery made from this one, as it is once committed (pending). */
  async resend(tenantId: string, id: string, request: ResendRequest): Promise<DeliveryDetail> {
    return getDelivery(this.db, tenantId, (await resendDelivery(this.resendDeps(), tenantId, id, request)).id);
  }

  /** A replay to another URL (issue 31): a new delivery made from this one, its first attempt left to the caller. */
  resendTo(tenantId: string, id: string, to: string): Promise<QueuedDelivery> {
    return resendDelivery(this.resendDeps(), tenantId, id, { to }, true);
  }

  /**
   * A realistic sample of a topic, changed as the caller asks (SPEC §11), sent to one target (SPEC §5.4): a registered
   * endpoint by id, or a URL, signed with the endpoint registered at that URL if there is one, else with the sandbox's
   * webhookTestSecret.
   */
  async sendTest(tenantId: string, topicName: string, endpoint: string, changes: SampleChanges = {}) {
    if (!isTopic(topicName)) throw unknownTopic(topicName);
    const topic: Topic = topicName;
    const target = await this.resolveTestTarget(tenantId, endpoint);
    const now = this.clock.now(tenantId);
    const { deliveries } = await this.db.transaction(async (tx) => {
      const sample = await buildSample(tx, tenantId, topic, now);
      const data = changes.data || changes.patch?.length ? customiseSample(topic, sample, changes) : sample;
      return this.outbox.emit(tx, tenantId, topic, data, { occurredAt: now, target });
    });
    return { deliveryId: deliveries[0].id, topic, endpoint, status: 'pending' as const };
  }

  private async resolveTestTarget(tenantId: string, endpoint: string): Promise<Target> {
    if (/^whe_/.test(endpoint)) {
      const [row] = await this.db.query<{ id: string; signature: SchemeName[] }>(
        'select id, signature from webhook_endpoints where tenant_id = $1 and id = $2',
        [tenantId, endpoint],
      );
      if (!row) {
        throw new ApiError(422, 'endpoint_not_found', `No webhook endpoint ${endpoint} in this sandbox.`, {
          errors: [{ path: '/endpoint', message: 'Unknown endpoint id.' }],
        });
      }
      return { endpointId: row.id, url: null, signature: row.signature };
    }
    const [registered] = await this.db.query<{ id: string; signature: SchemeName[] }>(
      'select id, signature from webhook_endpoints where tenant_id = $1 and url = $2 order by created_at limit 1',
      [tenantId, endpoint],
    );
    return registered
      ? { endpointId: registered.id, url: null, signature: registered.signature }
      : { endpointId: null, url: endpoint };
  }

  private async assertAttemptable(tenantId: string, id: string, endpointId: string | null): Promise<void> {
    const [check] = await this.db.query<{ check_id: string }>(
      'select check_id from deliveries where tenant_id = $1 and id = $2 and check_id is not null',
      [tenantId, id],
    );
    if (check) {
      throw new ApiError(
        409,
        'check_delivery',
        `This delivery is a request of receiver check ${check.check_id}, sent once as the case wanted it; run the check again instead.`,
      );
    }
    if (await this.dispatcher.isInFlight(tenantId, id)) throw attemptInFlight();
    if (!endpointId) return;
    const target = await this.endpoints.target(tenantId, endpointId);
    if (!target) throw new ApiError(409, 'endpoint_deleted', 'The endpoint of this delivery was deleted.');
    if (!target.enabled)
      throw new ApiError(409, 'endpoint_disabled', 'The endpoint of this delivery is disabled; enable it first.');
  }
}
