// Shapes of the API responses the inspector reads (see GET /api/v1/openapi.json); those the
// server shares are in src/shared/api-types.ts.

export type {
  Attempt, CreatedSandbox, Credentials, Delivery, DeliveryStatus, DeliverySummary, DlqReplayResult, Endpoint, LiveSecret, Page, Problem, Sandbox, TestCard,
} from '../../shared/api-types.ts';
import type { DeliveryStatus } from '../../shared/api-types.ts';

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
