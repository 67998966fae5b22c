import type { DomainDeps } from '../domain/deps.ts';
import type { Sandboxes } from '../domain/sandboxes/sandboxes.ts';
import type { PortableSandboxes } from '../domain/sandboxes/portable/portable.ts';
import type { TokenStore } from '../domain/oauth/token-store.ts';
import type { Scheduler } from '../schedule/scheduler.ts';
import type { WebhookEngine } from '../webhooks/engine.ts';
import type { CursorCodec } from './pagination.ts';

/** Everything route handlers reach for, built once by startSandbox. */
export interface Services extends DomainDeps {
  sandboxes: Sandboxes;
  /** Sandboxes as files: export and import. */
  portable: PortableSandboxes;
  tokens: TokenStore;
  cursors: CursorCodec;
  scheduler: Scheduler;
  webhooks: WebhookEngine;
  /** The server's own base URL, e.g. http://127.0.0.1:4400 */
  baseUrl: () => string;
}
