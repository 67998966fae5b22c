import type { Db, Queryable, Tx } from '../../db/database.ts';
import type { Invalidations } from '../../db/invalidations.ts';
import type { Credentials, Sandbox } from '../../shared/api-types.ts';
import { newId, randomString } from '../../shared/ids.ts';
import { allScopes } from '../../shared/scopes.ts';
import type { TenantLifecycle } from '../../shared/tenant-lifecycle.ts';
import type { SandboxClock } from '../../schedule/clock.ts';
import type { TokenStore } from '../oauth/token-store.ts';
import { newClientId, newClientSecret } from '../oauth/clients.ts';
import { seedTenant } from './seed.ts';

/** What `counts` reports, label → table; domains add theirs. */
const countedTables: Record<string, string> = {
  products: 'products',
  variants: 'variants',
  customers: 'customers',
  orders: 'orders',
  vendors: 'vendors',
  payments: 'payments',
  companies: 'companies',
  approvalRequests: 'approval_requests',
  quotes: 'quotes',
  offers: 'vendor_offers',
  payouts: 'payouts',
  savedReports: 'saved_reports',
  staff: 'staff_members',
  consents: 'consents',
};

/**
 * Tables a reset leaves alone: the tenant, its OAuth client and tokens (revoked by scope all), and who
 * streams it (its clients stay connected and must get the reset message).
 */
const keptOnReset = new Set([
  'tenants',
  'oauth_clients',
  'oauth_tokens',
  'oauth_codes',
  // The stream's clients stay connected through a reset and resume after it: its messages and numbers stay.
  'stream_watchers',
  'stream_messages',
  'stream_counters',
  // Commit positions keep counting, so a list cursor from before a reset never lands among newer rows.
  'list_counters',
]);
/** Kept on a plain reset, cleared by `{ "scope": "all" }`. */
const keptUnlessAll = new Set(['webhook_endpoints', 'webhook_secrets', 'catchers']);

/** How a sandbox is made other than by seeding it (an import). */
export interface CreateOptions {
  /** Fills the new sandbox inside its creating transaction instead of the seed. */
  fill?: (tx: Tx, id: string) => Promise<void>;
  webhookTestSecret?: string;
  notes?: string | null;
}

/** A sandbox as the API shows it, with its counts. */
export type SandboxSummary = Required<Sandbox>;

export class Sandboxes {
  readonly lifecycle: TenantLifecycle[] = [];
  private tenantTables?: string[];

  constructor(
    private readonly db: Db,
    private readonly tokens: TokenStore,
    private readonly clock: SandboxClock,
    private readonly invalidations: Invalidations,
  ) {
    // A reset or delete on another engine: this one forgets what it kept of the sandbox, as that one did.
    invalidations.onTenantChange(({ tenantId: id, reset, all }) => {
      for (const hook of this.lifecycle) hook.before?.(id);
      if (all) this.tokens.forgetTenant(id);
      this.clock.forget(id); // a reset's offset is 0, a deleted sandbox has none: either way, no entry
      for (const hook of this.lifecycle) hook.after(id, { reset, all, elsewhere: true });
    });
  }

  /**
   * Creates a sandbox with a client and a first token pair carrying every scope, and fills it in the
   * same transaction: with the seed by default, or with `fill` (an import).
   */
  async create(
    name?: string,
    options: CreateOptions = {},
  ): Promise<{ sandbox: SandboxSummary; credentials: Credentials; webhookTestSecret: string }> {
    const id = newId('sbx');
    const clientId = newClientId();
    const { secret: clientSecret, hash, hint } = newClientSecret();
    const webhookTestSecret = options.webhookTestSecret ?? `whsec_${randomString(32)}`;
    const scope = allScopes.join(' ');
    const displayName = name?.trim() || `Sandbox ${id.slice(-4)}`;
    // Millisecond timestamps, so list cursors (which carry ISO strings) compare exactly.
    const createdAt = new Date(this.clock.real());
    const issued = await this.db.transaction(async (tx) => {
      await tx.query(
        'insert into tenants (id, name, webhook_test_secret, created_at, notes) values ($1, $2, $3, $4, $5)',
        [id, displayName, webhookTestSecret, createdAt, options.notes ?? null],
      );
      await tx.query(
        'insert into oauth_clients (client_id, tenant_id, secret_hash, secret_hint, sandbox_client, scope) values ($1, $2, $3, $4, true, $5)',
        [clientId, id, hash, hint, scope],
      );
      await (options.fill ? options.fill(tx, id) : seedTenant(tx, id));
      // Counted before the commit: nothing after it may fail, or a sandbox would exist whose credentials nobody got.
      return {
        ...(await this.tokens.issue(tx, { tenantId: id, clientId, scope, refresh: true })),
        counts: await this.counts(tx, id),
      };
    });
    return {
      sandbox: {
        id,
        name: displayName,
        createdAt: createdAt.toISOString(),
        counts: issued.counts,
        notes: options.notes ?? null,
      },
      credentials: {
        clientId,
        clientSecret,
        accessToken: issued.accessToken,
        refreshToken: issued.refreshToken!,
        tokenType: 'Bearer',
        expiresIn: issued.expiresIn,
        scope,
      },
      webhookTestSecret,
    };
  }

  async get(id: string): Promise<SandboxSummary | undefined> {
    const [row] = await this.db.query<{ id: string; name: string; created_at: Date; notes: string | null }>(
      'select id, name, created_at, notes from tenants where id = $1 and not is_template',
      [id],
    );
    return (
      row && {
        id: row.id,
        name: row.name,
        createdAt: row.created_at.toISOString(),
        counts: await this.counts(this.db, id),
        notes: row.notes,
      }
    );
  }

  async exists(id: string): Promise<boolean> {
    const rows = await this.db.query('select 1 from tenants where id = $1 and not is_template', [id]);
    return rows.length > 0;
  }

  async list(
    limit: number,
    after?: { key: string | number; id: string },
  ): Promise<{ id: string; name: string; createdAt: string }[]> {
    const rows = await this.db.query<{ id: string; name: string; created_at: Date }>(
      `select id, name, created_at from tenants where not is_template
         and ($2::timestamptz is null or (created_at, id) < ($2, $3))
       order by created_at desc, id desc limit $1`,
      [limit, after?.key ?? null, after?.id ?? null],
    );
    return rows.map((r) => ({ id: r.id, name: r.name, createdAt: r.created_at.toISOString() }));
  }

  /**
   * What the dashboard may show again: the client id, its secret's hint (the secret itself is stored
   * hashed and was shown once), and the webhook test secret (Sandbay signs with it, so it is kept).
   */
  async secrets(
    id: string,
  ): Promise<{ clientId: string; clientSecretHint: string; webhookTestSecret: string } | undefined> {
    const [row] = await this.db.query<{ client_id: string; secret_hint: string; webhook_test_secret: string }>(
      `select c.client_id, c.secret_hint, t.webhook_test_secret from tenants t
         join oauth_clients c on c.tenant_id = t.id and c.sandbox_client where t.id = $1`,
      [id],
    );
    return (
      row && { clientId: row.client_id, clientSecretHint: row.secret_hint, webhookTestSecret: row.webhook_test_secret }
    );
  }

  async counts(q: Queryable, id: string): Promise<Record<string, number>> {
    const entries = Object.entries(countedTables);
    const select = entries
      .map(([, table], i) => `(select count(*) from ${table} where tenant_id = $1)::int as c${i}`)
      .join(', ');
    const [row] = await q.query<Record<string, number>>(`select ${select}`, [id]);
    return Object.fromEntries(entries.map(([label], i) => [label, row[`c${i}`]]));
  }

  /**
   * Factory defaults for one tenant (SPEC §3): commerce data, clock and delivery log. With
   * `all`, endpoints go too, every token is revoked and fresh credentials are returned.
   */
  async reset(
    id: string,
    all: boolean,
  ): Promise<{ counts: Record<string, number>; durationMs: number; credentials?: Credentials }> {
    const started = performance.now();
    const tables = await this.tablesWithTenant();
    for (const hook of this.lifecycle) hook.before?.(id);
    const credentials = await this.db.transaction(async (tx) => {
      tx.afterCommit(() => {
        this.clock.setOffset(id, 0);
        for (const hook of this.lifecycle) hook.after(id, { reset: true, all });
      });
      for (const table of tables) {
        if (keptOnReset.has(table) || (!all && keptUnlessAll.has(table))) continue;
        await tx.query(`delete from ${table} where tenant_id = $1`, [id]);
      }
      await tx.query('update tenants set clock_offset_ms = 0 where id = $1', [id]);
      await this.invalidations.announceTenant(tx, { tenantId: id, reset: true, all });
      await seedTenant(tx, id);
      return all ? this.reissueCredentials(tx, id) : undefined;
    });
    const durationMs = Math.round((performance.now() - started) * 10) / 10;
    return { counts: await this.counts(this.db, id), durationMs, ...(credentials ? { credentials } : {}) };
  }

  async remove(id: string): Promise<void> {
    for (const hook of this.lifecycle) hook.before?.(id);
    await this.db.transaction(async (tx) => {
      tx.afterCommit(() => {
        this.tokens.forgetTenant(id);
        this.clock.forget(id);
        for (const hook of this.lifecycle) hook.after(id, { reset: false, all: true });
      });
      await tx.query('delete from tenants where id = $1 and not is_template', [id]);
      await this.invalidations.announceTenant(tx, { tenantId: id, reset: false, all: true });
    });
  }

  private async reissueCredentials(tx: Tx, id: string): Promise<Credentials> {
    await this.tokens.revokeTenant(tx, id);
    const { secret: clientSecret, hash, hint } = newClientSecret();
    const [client] = await tx.query<{ client_id: string }>(
      'update oauth_clients set secret_hash = $2, secret_hint = $3 where tenant_id = $1 and sandbox_client returning client_id',
      [id, hash, hint],
    );
    const scope = allScopes.join(' ');
    const issued = await this.tokens.issue(tx, { tenantId: id, clientId: client.client_id, scope, refresh: true });
    return {
      clientId: client.client_id,
      clientSecret,
      accessToken: issued.accessToken,
      refreshToken: issued.refreshToken!,
      tokenType: 'Bearer',
      expiresIn: issued.expiresIn,
      scope,
    };
  }

  private async tablesWithTenant(): Promise<string[]> {
    this.tenantTables ??= (
      await this.db.query<{ table_name: string }>(
        `select table_name from information_schema.columns
          where table_schema = 'public' and column_name = 'tenant_id' and table_name <> 'tenants'`,
      )
    ).map((r) => r.table_name);
    return this.tenantTables;
  }
}
