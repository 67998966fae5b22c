// Shapes of the API responses the inspector reads (see GET /api/v1/openapi.json).

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

export interface CreatedSandbox {
  sandbox: Sandbox;
  credentials: Credentials;
  webhookTestSecret: string;
}

export interface PortalSecrets {
  clientId: string;
  clientSecret: string;
  webhookTestSecret: string;
}

export interface Clock {
  now: string;
  offsetSeconds: number;
  jobsRun?: number;
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
  createdAt: string;
  updatedAt: string;
}

export interface Attempt {
  number: number;
  trigger: 'initial' | 'retry' | 'replay' | 'manual';
  url: string;
  startedAt: string;
  durationMs: number;
  signatureHeader: string;
  responseStatus: number | null;
  responseHeaders: Record<string, string>;
  responseBody: string;
  error: string | null;
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
  createdAt: string;
  updatedAt: string;
}

export interface LiveSecret {
  secret: string;
  createdAt: string;
  expiresAt: string | null;
}

export interface DlqReplayResult {
  replayed: number;
  succeeded: number;
  failed: number;
  skipped: number;
  deliveryIds: string[];
}

export type CatcherMode = 'status' | 'timeout' | 'redirect';

export interface Catcher {
  name: string;
  url: string;
  mode: CatcherMode;
  status: number;
  delayMs: number;
  requestCount: number;
  createdAt: string;
  updatedAt: string;
}

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

/** What the live stream says about a delivery (SPEC §5.7). */
export interface StreamMessage {
  event: 'delivery.created' | 'delivery.updated' | 'attempt.finished' | 'reset';
  data: {
    id?: string;
    topic?: string;
    endpointId?: string | null;
    status?: DeliveryStatus;
    attemptCount?: number;
    nextAttemptAt?: string | null;
    number?: number;
    responseStatus?: number | null;
    error?: string | null;
  };
}
