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
