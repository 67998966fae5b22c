// The shapes of API responses, shared by the server that produces them and the inspector that reads them.
// Every one is inferred from the zod schema the server answers with (./schemas, the OpenAPI document's
// source too), so a field cannot be added on one side and missing on the other: the type-check fails.
// tests/unit/api-types.test.ts checks that the routes answer with exactly these schemas.
import type { z } from 'zod';
import type * as catchers from './schemas/catchers.ts';
import type * as checks from './schemas/checks.ts';
import type * as common from './schemas/common.ts';
import type * as comparison from './schemas/comparison.ts';
import type * as jobs from './schemas/jobs.ts';
import type * as oauth from './schemas/oauth-clients.ts';
import type * as payments from './schemas/payments.ts';
import type * as sandbox from './schemas/sandbox.ts';
import type * as webhooks from './schemas/webhooks.ts';

export type Problem = z.infer<typeof common.Problem>;

export interface Page<T> {
  data: T[];
  nextCursor: string | null;
}

export type Sandbox = z.infer<typeof sandbox.Sandbox>;
/** A sandbox as the admin's list shows it: without its counts. */
export type SandboxSummary = z.infer<typeof sandbox.SandboxSummary>;
export type Credentials = z.infer<typeof sandbox.Credentials>;
/** GET/POST /api/v1/session: the inspector's sign-in state on this server. */
export type SessionState = z.infer<typeof sandbox.Session>;
export type CreatedSandbox = z.infer<typeof sandbox.CreatedSandbox>;
/** POST /api/v1/sandbox/reset. */
export type ResetResult = z.infer<typeof sandbox.ResetResult>;
/**
 * GET /api/v1/sandbox/credentials: what the developer portal shows (the client secret only as a hint: it is shown
 * once).
 */
export type PortalSecrets = z.infer<typeof oauth.SandboxCredentials>;
/** An OAuth client; `clientSecret` only in the answer to its creation or rotation. */
export type OAuthClientView = z.infer<typeof oauth.OAuthClient>;
/** POST /api/v1/sandbox/tokens: a new access token of the sandbox's own client. */
export type MintedToken = z.infer<typeof oauth.MintedToken>;

export type DeliverySummary = z.infer<typeof webhooks.DeliverySummary>;
export type DeliveryStatus = DeliverySummary['status'];
/** What chaos did to an attempt: held it back (delay, reorder window), or sent the delivery again. */
export type AttemptChaos = z.infer<typeof webhooks.AttemptChaos>;
export type Attempt = z.infer<typeof webhooks.Attempt>;
export type Delivery = z.infer<typeof webhooks.Delivery>;
export type Endpoint = z.infer<typeof webhooks.Endpoint>;
/** Faults injected into deliveries to an endpoint. */
export type EndpointChaos = NonNullable<Endpoint['chaos']>;
export type LiveSecret = z.infer<typeof webhooks.LiveSecrets>['data'][number];
/** Why and since when an endpoint is off (a 410 Gone, or a user). */
export type EndpointDisabled = NonNullable<Endpoint['disabled']>;
/** POST /api/v1/webhooks/endpoints/enable: what came on, and what the outbound policy kept off. */
export type EnabledEndpoints = z.infer<typeof webhooks.EnabledEndpoints>;
/** A Retry-After on a 429, 502, 503 or 504, and what it did to the next attempt (SPEC §5.3). */
export type AttemptRetryAfter = NonNullable<Attempt['retryAfter']>;
/** GET …/deliveries/{id}/signed-request: the delivery's request, signed afresh now. */
export type SignedRequest = z.infer<typeof webhooks.SignedRequest>;
/** A commerce job set aside because its row could not be processed (GET /api/v1/sandbox/jobs/failed). */
export type FailedJob = z.infer<typeof jobs.FailedJob>;
/** A replay of the dead-letter queue and its progress (GET /api/v1/webhooks/dlq-replays/{id}). */
export type DlqReplayJob = z.infer<typeof webhooks.DlqReplayJob>;
export type ReplayFilter = z.infer<typeof webhooks.ReplayFilter>;
/** Where a DLQ replay job stands; only `running` changes. */
export type DlqReplayState = DlqReplayJob['state'];
/** POST /api/v1/webhooks/test. */
export type TestWebhookResult = z.infer<typeof webhooks.TestWebhookResult>;
/** The sandbox clock. */
export type Clock = z.infer<typeof webhooks.Clock>;
/** The sandbox clock after an advance, with how many due jobs it ran. */
export type AdvancedClock = z.infer<typeof webhooks.AdvancedClock>;

/** One row of seed/test-cards.json: a well-known test number and what paying with it does. */
export type TestCard = z.infer<typeof payments.TestCard>;

export type Catcher = z.infer<typeof catchers.Catcher>;
export type CatcherMode = Catcher['mode'];
/** How a catcher answers: `mode`, the `status` answered in status mode, and a `delayMs` before answering. */
export type CatcherBehaviour = Pick<Catcher, 'mode' | 'status' | 'delayMs'>;
/** A request a catcher received, and whether its signature verified. */
export type CaughtRequest = z.infer<typeof catchers.CaughtRequest>;

/** One case of the receiver check's battery, as GET /api/v1/webhooks/check-cases describes it. */
export type CheckCaseInfo = z.infer<typeof checks.CheckCaseInfo>;

export type StreamEvent =
  | 'delivery.created'
  | 'delivery.updated'
  | 'attempt.finished'
  | 'check.updated'
  | 'clock.advanced'
  | 'job.failed'
  | 'reset';

/** What the live stream says about a delivery (SPEC §5.7); the stream is SSE, outside the OpenAPI document. */
export interface StreamMessage {
  event: StreamEvent;
  data: {
    id?: string;
    topic?: string;
    endpointId?: string | null;
    status?: DeliveryStatus;
    attemptCount?: number;
    nextAttemptAt?: string | null;
    number?: number;
    trigger?: Attempt['trigger'];
    responseStatus?: number | null;
    error?: string | null;
    durationMs?: number;
    /** On `reset`: why the client must reload. */
    reason?: string;
    /** On `clock.advanced`: the sandbox clock after an advance (from any client: the CLI, a script, another tab). */
    offsetSeconds?: number;
    now?: string;
    /** On `delivery.updated` when the receiver's 410 Gone has just disabled the delivery's endpoint. */
    endpointDisabled?: boolean;
    /** On `delivery.created` of a receiver check's probe (lists leave those out unless asked for). */
    check?: boolean;
    /** On `delivery.updated` when chaos holds a first attempt back. */
    chaos?: AttemptChaos | null;
    /** On `check.updated` (a receiver check's run): cases done of total, and the run's status. */
    done?: number;
    total?: number;
    runStatus?: 'running' | 'finished' | 'interrupted';
  };
}

/** GET /api/v1/webhooks/deliveries/{id}/compare: two deliveries or attempts side by side. */
export type DeliveryComparison = z.infer<typeof comparison.DeliveryComparison>;
