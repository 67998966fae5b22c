/**
 * What a sandbox file holds, table by table (docs/portable.md). Every table with a tenant_id column is
 * either listed in `portableTables` or in `notExported`, and every column of a listed table is either
 * exported or named in `local` or `secrets` with the reason: tests/integration/portable/coverage.test.ts
 * fails on a table or column that is neither, so a new migration has to decide here what it means for
 * a sandbox carried to another machine.
 */

/** What an import does with a secret column of a file exported without secrets (its value is null there). */
type SecretPolicy =
  /** A new webhook secret (whsec_…): the endpoint signs with it from then on, and the report says so. */
  | 'new-webhook-secret'
  /** An empty string: the value only served the original (the secret a receiver check signed with). */
  | 'empty'
  /** Null: the value only served the original (an invitation's token hash: that invitation is then void). */
  | 'null'
  /** A new ed25519 signing key (whsk_…): the endpoint's public key changes with its secret (reported renewed). */
  | 'new-signing-key';

export interface PortableTable {
  table: string;
  /** Exported as they are (tenant_id never is: the importing sandbox has its own id). */
  columns: readonly string[];
  /** Exported only with secrets (--include-secrets); otherwise written as null and replaced on import. */
  secrets?: Readonly<Record<string, SecretPolicy>>;
  /** Not exported, with why: the importing database fills them (sequences, leases, caches). */
  local?: Readonly<Record<string, string>>;
  /**
   * Columns whose value only means something in its own database: `out` is what the file carries (an
   * SQL expression over the exported row `t`), `in` what the import writes (an SQL expression over the
   * file's row `f`; default the file's value as it is), and `afterImport` may fix it up afterwards.
   */
  portable?: Readonly<Record<string, { out: string; in?: string }>>;
  /** Export order, which is also insertion order on import (lists ordered by insertion keep their order). */
  order: readonly string[];
  /** An SQL expression over the exported row `t` sorted by before `order` (a list's commit position). */
  sortKey?: string;
  /** SQL run once every table's rows are in ($1 = the new sandbox id): fixes up `portable` columns. */
  afterImport?: string;
}

const sandboxTime = 'created_at';

/** Where an event or delivery stands in its sandbox's lists: its transaction's commit position (migration 075). */
const listPosition = '(select c.position from list_commits c where c.tenant_id = t.tenant_id and c.xid = t.xid)';

/** Parents first, so that a reader sees what a row refers to before the row. */
export const portableTables: readonly PortableTable[] = [
  {
    table: 'vendors',
    columns: [
      'id',
      'name',
      'status',
      'commission_bps',
      'city',
      'created_at',
      'updated_at',
      'email',
      'tax_number',
      'iban',
      'standing',
      'status_reason',
      'decided_at',
    ],
    order: ['id'],
  },
  {
    table: 'products',
    columns: [
      'id',
      'name',
      'description',
      'category',
      'status',
      'vendor_id',
      'created_at',
      'updated_at',
      'published_at',
      'archived_at',
    ],
    order: ['id'],
  },
  {
    table: 'variants',
    columns: ['id', 'product_id', 'sku', 'name', 'price_minor', 'stock', 'created_at'],
    order: ['id'],
  },
  {
    table: 'companies',
    columns: [
      'id',
      'name',
      'tax_number',
      'approval_threshold_minor',
      'approval_levels',
      'approval_ttl_hours',
      'created_at',
    ],
    order: ['id'],
  },
  {
    table: 'customers',
    columns: [
      'id',
      'name',
      'email',
      'phone',
      'city',
      'district',
      'address_line',
      'created_at',
      'company_id',
      'company_role',
      'approval_level',
    ],
    order: ['id'],
  },
  {
    table: 'orders',
    columns: [
      'id',
      'customer_id',
      'status',
      'total_minor',
      'currency',
      'city',
      'district',
      'created_at',
      'updated_at',
      'cancelled_at',
      'items',
      'doc',
    ],
    order: [sandboxTime, 'id'],
  },
  {
    table: 'order_items',
    columns: [
      'order_id',
      'position',
      'variant_id',
      'product_id',
      'name',
      'quantity',
      'unit_price_minor',
      'line_total_minor',
    ],
    order: ['order_id', 'position'],
  },
  {
    table: 'payments',
    columns: [
      'id',
      'order_id',
      'status',
      'amount_minor',
      'refunded_minor',
      'currency',
      'card_brand',
      'card_last4',
      'decline_code',
      'created_at',
      'updated_at',
      'provider',
      'three_d_secure',
      'return_url',
      'refund_behavior',
      'captured_at',
    ],
    // The 3-D Secure page's URL token is a capability unique across the install: the file says only whether
    // there is one, and the import issues a new one (importing a file twice must not collide).
    portable: {
      challenge_token: {
        out: '(t.challenge_token is not null)',
        in: `case when f.challenge_token = 'true' then md5(random()::text || clock_timestamp()::text) || md5(random()::text) end`,
      },
    },
    order: ['id'],
  },
  {
    table: 'refunds',
    columns: ['id', 'payment_id', 'amount_minor', 'currency', 'status', 'reason', 'failure_reason', 'created_at'],
    order: ['id'],
  },
  {
    table: 'approval_requests',
    columns: [
      'id',
      'order_id',
      'company_id',
      'buyer_id',
      'status',
      'levels',
      'level_index',
      'amount_minor',
      'currency',
      'threshold_minor',
      'expires_at',
      'decided_at',
      'created_at',
      'updated_at',
    ],
    order: ['id'],
  },
  {
    table: 'approval_decisions',
    columns: ['request_id', 'position', 'level', 'approver_id', 'decision', 'note', 'decided_at'],
    order: ['request_id', 'position'],
  },
  {
    table: 'quotes',
    columns: [
      'id',
      'customer_id',
      'status',
      'total_minor',
      'currency',
      'city',
      'district',
      'note',
      'valid_days',
      'sent_at',
      'expires_at',
      'decided_at',
      'decision_reason',
      'order_id',
      'created_at',
      'updated_at',
    ],
    order: ['id'],
  },
  {
    table: 'quote_items',
    columns: [
      'quote_id',
      'position',
      'variant_id',
      'product_id',
      'name',
      'quantity',
      'unit_price_minor',
      'line_total_minor',
    ],
    order: ['quote_id', 'position'],
  },
  {
    table: 'vendor_offers',
    columns: ['id', 'vendor_id', 'variant_id', 'price_minor', 'shipping_minor', 'stock', 'created_at', 'updated_at'],
    order: ['id'],
  },
  {
    table: 'buybox_winners',
    columns: ['variant_id', 'offer_id', 'vendor_id', 'price_minor', 'shipping_minor', 'stock', 'updated_at'],
    order: ['variant_id'],
  },
  {
    table: 'payouts',
    columns: [
      'id',
      'vendor_id',
      'period_start',
      'period_end',
      'status',
      'gross_minor',
      'commission_minor',
      'refunds_minor',
      'amount_minor',
      'currency',
      'order_count',
      'attempt_count',
      'next_attempt_at',
      'last_failure_code',
      'paid_at',
      'created_at',
      'updated_at',
    ],
    order: ['id'],
  },
  {
    table: 'payout_attempts',
    columns: ['payout_id', 'number', 'iban_last4', 'outcome', 'failure_code', 'attempted_at'],
    order: ['payout_id', 'number'],
  },
  {
    table: 'saved_reports',
    columns: ['id', 'name', 'kind', 'schedule', 'active', 'next_due_at', 'last_run_at', 'created_at', 'updated_at'],
    order: ['id'],
  },
  {
    table: 'report_runs',
    columns: ['id', 'report_id', 'due_at', 'period_start', 'period_end', 'result', 'created_at'],
    order: ['id'],
  },
  {
    table: 'staff_members',
    columns: ['id', 'email', 'name', 'role', 'status', 'invited_by', 'invited_at', 'accepted_at', 'created_at'],
    secrets: { invitation_hash: 'null' },
    order: ['id'],
  },
  {
    table: 'impersonation_sessions',
    columns: [
      'id',
      'staff_id',
      'customer_id',
      'reason',
      'status',
      'started_at',
      'expires_at',
      'ended_at',
      'end_reason',
      'created_at',
    ],
    order: ['id'],
  },
  {
    table: 'audit_log',
    columns: ['id', 'actor_id', 'action', 'target_id', 'details', 'created_at'],
    order: [sandboxTime, 'id'],
  },
  {
    table: 'consents',
    columns: [
      'id',
      'customer_id',
      'channel',
      'recipient',
      'status',
      'source',
      'consent_at',
      'push_due_at',
      'last_pushed_at',
      'created_at',
      'updated_at',
    ],
    order: ['id'],
  },
  {
    table: 'webhook_endpoints',
    columns: [
      'id',
      'url',
      'topics',
      'description',
      'enabled',
      'allow_insecure_tls',
      'created_at',
      'updated_at',
      'chaos',
      'signature',
      'disabled_reason',
      'disabled_at',
      'disabled_delivery_id',
    ],
    // Deliveries are numbered for chaos's seeded draws from this sequence value; the file carries how many
    // of the sandbox's deliveries came before it, and the import finds the new sequence value at that count.
    portable: {
      chaos_since_seq: {
        out: '(select count(*) from deliveries o where o.tenant_id = t.tenant_id and o.seq <= t.chaos_since_seq)',
      },
    },
    afterImport: `update webhook_endpoints e set chaos_since_seq = coalesce((select d.seq from deliveries d where d.tenant_id = $1
                    order by d.seq offset greatest(e.chaos_since_seq - 1, 0) limit 1), 0) * (e.chaos_since_seq > 0)::int
                  where e.tenant_id = $1`,
    order: ['created_at', 'id'],
  },
  {
    table: 'webhook_secrets',
    columns: ['endpoint_id', 'created_at', 'expires_at'],
    secrets: { secret: 'new-webhook-secret', signing_key: 'new-signing-key' },
    order: ['endpoint_id', 'created_at'],
  },
  { table: 'catchers', columns: ['name', 'mode', 'status', 'delay_ms', 'created_at', 'updated_at'], order: ['name'] },
  {
    table: 'catcher_requests',
    columns: [
      'catcher_name',
      'id',
      'received_at',
      'method',
      'headers',
      'body',
      'bytes',
      'verification',
      'response_status',
      'delay_ms',
    ],
    local: { seq: 'arrival order, a sequence of the importing database (rows go in in arrival order)' },
    order: ['seq'],
  },
  {
    table: 'events',
    columns: ['id', 'topic', 'occurred_at', 'data', 'test'],
    local: { seq: 'list order: rows go in in list order', xid: 'list order: the importing transaction' },
    sortKey: listPosition,
    order: ['seq'],
  },
  {
    table: 'deliveries',
    columns: [
      'id',
      'event_id',
      'endpoint_id',
      'target_url',
      'topic',
      'status',
      'body',
      'attempt_count',
      'cycle_attempts',
      'next_attempt_at',
      'last_status',
      'last_error',
      'created_at',
      'updated_at',
      'check_id',
      'check_case',
      'chaos',
      'resent_from',
      'resend_edited',
      'wire_id',
      'signing_endpoint_id',
      'resent_from_attempt',
    ],
    local: {
      seq: 'list order: rows go in in list order',
      xid: 'list order: the importing transaction',
      lease_owner: 'an engine of the exporting database held it for one attempt; the importing engines claim afresh',
      lease_until: 'see lease_owner',
      lease_slot: 'see lease_owner',
      real_created_at: 'when this database recorded it, on the real clock: an imported delivery, at its import',
    },
    sortKey: listPosition,
    order: ['seq'],
  },
  {
    table: 'attempts',
    columns: [
      'delivery_id',
      'number',
      'trigger',
      'url',
      'started_at',
      'duration_ms',
      'signature_header',
      'response_status',
      'response_headers',
      'response_body',
      'error',
      'chaos',
      'signature',
      'signature_headers',
      'schedule_note',
    ],
    order: ['delivery_id', 'number'],
  },
  {
    table: 'check_runs',
    columns: [
      'id',
      'endpoint_id',
      'url',
      'status',
      'report',
      'created_at',
      'started_real',
      'finished_at',
      'signature',
      'public_key',
    ],
    secrets: { secret: 'empty' },
    local: { seq: 'list order: rows go in in list order' },
    order: ['seq'],
  },
  {
    table: 'dlq_replay_jobs',
    columns: [
      'id',
      'topic',
      'endpoint_id',
      'state',
      'total',
      'succeeded',
      'failed',
      'skipped',
      'created_at',
      'updated_at',
      'finished_at',
      'filter',
    ],
    order: ['created_at', 'id'],
  },
];

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

/** The columns an import writes for a table, in file order: exported, secret and portable ones. */
export const importedColumns = (t: PortableTable): string[] => [
  ...t.columns,
  ...Object.keys(t.secrets ?? {}),
  ...Object.keys(t.portable ?? {}),
];

export const portableTableNamed = new Map(portableTables.map((t) => [t.table, t]));
