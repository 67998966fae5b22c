// The shapes of API responses, shared by the server that produces them and the inspector that
// reads them (the zod schemas in src/server/schemas describe the same shapes for OpenAPI).

export interface Problem {
  type: string;
  title: string;
  status: number;
  detail: string;
  code: string;
  errors?: { path: string; message: string }[];
}

export interface Page<T> {
  data: T[];
  nextCursor: string | null;
}

export interface Sandbox {
  id: string;
  name: string;
  createdAt: string;
  counts?: Record<string, number>;
  /** What an imported sandbox file said about its scenario. */
  notes?: string | null;
}

export interface Credentials {
  clientId: string;
  clientSecret: string;
  accessToken: string;
  refreshToken: string;
  tokenType: 'Bearer';
  expiresIn: number;
  scope: string;
}

/** GET/POST /api/v1/session: the inspector's sign-in state on this server. */
export interface SessionState {
  /** Shared beyond loopback: the inspector signs in with one sandbox's credentials, never the admin key. */
  shared: boolean;
  publicUrl: string;
  /** Anyone may create a sandbox (always on a laptop); false: only the operator, with the admin key. */
  openSandboxCreation: boolean;
  sandbox: { id: string; scopes: string[]; expiresAt: string } | null;
}

export interface CreatedSandbox {
  sandbox: Sandbox;
  credentials: Credentials;
  webhookTestSecret: string;
}

export type DeliveryStatus = 'pending' | 'succeeded' | 'dead';

export interface DeliverySummary {
  id: string;
  eventId: string;
  topic: string;
  endpointId: string | null;
  url: string | null;
  status: DeliveryStatus;
  attemptCount: number;
  nextAttemptAt: string | null;
  lastStatus: number | null;
  lastError: string | null;
  test: boolean;
  /** Set on the deliveries of a receiver check (SPEC §10): its run and case. */
  check: { id: string; case: string } | null;
  createdAt: string;
  updatedAt: string;
}

/** What chaos did to an attempt: held it back (delay, reorder window), or sent the delivery again. */
export interface AttemptChaos {
  duplicate: boolean;
  heldMs: number;
  delayMs: number;
  reorderMs: number;
}

export interface Attempt {
  number: number;
  /** `check`: a receiver check's request; `duplicate`: chaos sent the delivery again after a 2xx. */
  trigger: 'initial' | 'retry' | 'replay' | 'manual' | 'check' | 'duplicate';
  url: string;
  startedAt: string;
  durationMs: number;
  signatureHeader: string;
  responseStatus: number | null;
  responseHeaders: Record<string, string>;
  responseBody: string;
  error: string | null;
  /** The faults chaos injected into this attempt; null when none. */
  chaos: AttemptChaos | null;
}

export interface Delivery extends DeliverySummary {
  envelope: { topic: string; deliveryId: string; tenantId: string; occurredAt: string; data: unknown };
  rawBody: string;
  attempts: Attempt[];
}

export interface Endpoint {
  id: string;
  url: string;
  topics: string[];
  description: string | null;
  enabled: boolean;
  allowInsecureTls: boolean;
  secret: string;
  /** Faults injected into deliveries to this endpoint; null when off. */
  chaos: EndpointChaos | null;
  createdAt: string;
  updatedAt: string;
}

export interface EndpointChaos {
  duplicateRate: number;
  reorderWindowMs: number;
  delayMs: number;
  seed: number;
}

export interface LiveSecret {
  secret: string;
  createdAt: string;
  expiresAt: string | null;
}

/** Where a DLQ replay job stands; only `running` changes. */
export type DlqReplayState = 'running' | 'completed' | 'cancelled' | 'interrupted';

/** A replay of the dead-letter queue and its progress (GET /api/v1/webhooks/dlq-replays/{id}). */
export interface DlqReplayJob {
  id: string;
  state: DlqReplayState;
  topic: string | null;
  endpointId: string | null;
  /** Dead deliveries matching the filters when the job started. */
  total: number;
  /** succeeded + failed + skipped. */
  done: number;
  succeeded: number;
  failed: number;
  /** No longer dead when their turn came, in flight already, or their endpoint deleted or disabled. */
  skipped: number;
  createdAt: string;
  updatedAt: string;
  finishedAt: string | null;
}

/** One row of seed/test-cards.json: a well-known test number and what paying with it does. */
export interface TestCard {
  number: string;
  brand: string;
  provider: string;
  outcome: 'captured' | 'requires_action' | 'declined';
  declineCode: string | null;
  refund: 'succeeds' | 'fails';
  description: string;
}

/** GET /api/v1/sandbox/credentials: what the developer portal shows (the client secret only as a hint: it is shown once). */
export interface PortalSecrets {
  clientId: string;
  clientSecretHint: string;
  webhookTestSecret: string;
}

/** An OAuth client; `clientSecret` only in the answer to its creation or rotation. */
export interface OAuthClientView {
  clientId: string;
  clientSecretHint: string | null;
  clientSecret?: string;
}

/** POST /api/v1/sandbox/tokens: a new access token of the sandbox's own client. */
export interface MintedToken {
  accessToken: string;
  tokenType: 'Bearer';
  expiresIn: number;
  scope: string;
}

/** The sandbox clock; an advance also says how many due jobs it ran. */
export interface Clock {
  now: string;
  offsetSeconds: number;
  jobsRun?: number;
}

export type CatcherMode = 'status' | 'timeout' | 'redirect';

/** How a catcher answers. */
export interface CatcherBehaviour {
  mode: CatcherMode;
  /** The status answered in `status` mode. */
  status: number;
  /** Wait this long before answering. */
  delayMs: number;
}

export interface Catcher extends CatcherBehaviour {
  name: string;
  url: string;
  requestCount: number;
  createdAt: string;
  updatedAt: string;
}

/** A request a catcher received, and whether its signature verified. */
export interface CaughtRequest {
  id: string;
  receivedAt: string;
  method: string;
  headers: Record<string, string>;
  body: string;
  bytes: number;
  verification: {
    verified: boolean;
    reason: 'ok' | 'no_header' | 'malformed_header' | 'no_matching_signature' | 'timestamp_outside_tolerance' | 'unknown_delivery';
    deliveryId: string | null;
    secretSource: 'endpoint' | 'test_secret' | null;
  };
  responseStatus: number | null;
  delayMs: number;
}

export type StreamEvent = 'delivery.created' | 'delivery.updated' | 'attempt.finished' | 'check.updated' | 'reset';

/** What the live stream says about a delivery (SPEC §5.7). */
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
    /** On `delivery.updated` when chaos holds a first attempt back. */
    chaos?: AttemptChaos | null;
    /** On `check.updated` (a receiver check's run): cases done of total, and the run's status. */
    done?: number;
    total?: number;
    runStatus?: 'running' | 'finished' | 'interrupted';
  };
}

/** One case of the receiver check's battery, as GET /api/v1/webhooks/check-cases describes it. */
export interface CheckCaseInfo {
  id: string;
  sends: string;
  guards: string;
  expected: string;
}
