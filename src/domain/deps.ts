import type { Db } from '../db/database.ts';
import type { SandboxClock } from '../schedule/clock.ts';
import type { Outbox } from '../webhooks/outbox.ts';

/** What domain rules need: the database, the sandbox clock and the event outbox. */
export interface DomainDeps {
  db: Db;
  clock: SandboxClock;
  events: Outbox;
}
