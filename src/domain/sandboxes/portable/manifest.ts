/**
 * What a sandbox file holds, table by table (docs/portable.md). Every table with a tenant_id column is
 * either listed in `portableTables` or in `notExported`, and every column of a listed table is either
 * exported or named in `local` or `secrets` with the reason: tests/integration/portable/coverage.test.ts
 * fails on a table or column that is neither, so a new migration has to decide here what it means for
 * a sandbox carried to another machine.
 */
import { commerceTables } from './commerce-tables.ts';
import type { PortableTable } from './portable-table.ts';
import { webhookTables } from './webhook-tables.ts';

/** Parents first, so that a reader sees what a row refers to before the row. */
export const portableTables: readonly PortableTable[] = [...commerceTables, ...webhookTables];

/** Tenant-scoped tables a sandbox file leaves out, and why. */
export const notExported: Readonly<Record<string, string>> = {
  oauth_clients: 'an imported sandbox gets new credentials',
  oauth_tokens: 'an imported sandbox gets new credentials',
  oauth_codes: 'an imported sandbox gets new credentials',
  idempotency_keys: "keys protect retries of one client's requests to the original sandbox for 24 h",
  stream_messages: "the live stream's buffer of the last few minutes",
  stream_watchers: 'who is streaming the original sandbox right now',
  stream_counters: "the numbers of the original sandbox's stream messages",
  list_counters:
    "the original sandbox's commit positions and delivery count: the import's own transaction takes the next ones",
  failed_jobs:
    "jobs the original engine set aside: the import's engine runs the rows' jobs afresh, and sets aside those that fail",
  list_commits: 'the commit position of each transaction of the original database (the import is one transaction)',
};

/** The tenants row: what of it the file's header carries, and what the importing side sets. */
export const tenantColumns: Readonly<Record<string, string>> = {
  id: 'local: a new sandbox id',
  name: 'header: sandbox.name',
  notes: 'header: sandbox.notes',
  is_template: 'local: never a template',
  webhook_test_secret: 'header: webhookTestSecret, a secret (a new one is issued without --include-secrets)',
  clock_offset_ms: 'header: clock (the sandbox clock resumes from the exported sandbox time)',
  created_at: 'local: when the import made it',
  advancing_until: 'local: an advance in progress on the exporting side',
  advancing_owner: 'local: which advance holds that mark',
};

export const portableTableNamed = new Map(portableTables.map((t) => [t.table, t]));
