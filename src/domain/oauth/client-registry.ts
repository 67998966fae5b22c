import type { Db } from '../../db/database.ts';
import type { OAuthClientView } from '../../shared/api-types.ts';
import { ApiError, notFound } from '../../shared/problem.ts';
import { clientColumns, newClientId, newClientSecret, toClient, type ClientRow, type OAuthClient } from './clients.ts';
import type { TokenStore } from './token-store.ts';

/** Clients one sandbox may register besides its own: plenty for apps under test, bounded for a shared server. */
const maxClientsPerSandbox = 25;

export interface ClientInput {
  name?: string;
  public?: boolean;
  redirectUris?: string[];
  /** Space-separated, each one its creator's (the caller checked that). */
  scope: string;
}

const view = (c: OAuthClient, clientSecret?: string): OAuthClientView => ({
  clientId: c.clientId,
  name: c.name,
  public: c.public,
  sandboxClient: c.sandboxClient,
  redirectUris: c.redirectUris,
  scope: c.scopes.join(' '),
  clientSecretHint: c.secretHint,
  createdAt: c.createdAt.toISOString(),
  ...(clientSecret ? { clientSecret } : {}),
});

/**
 * A sandbox's OAuth clients (SPEC §3): its own credentials client, created with it and always
 * confidential, and the clients an app under test registers — confidential (a secret, shown once)
 * or public (no secret, PKCE required). Secrets are stored hashed, as GitHub and Stripe keep theirs.
 */
export class OAuthClients {
  constructor(
    private readonly db: Db,
    private readonly tokens: TokenStore,
  ) {}

  async list(tenantId: string): Promise<OAuthClientView[]> {
    const rows = await this.db.query<ClientRow>(
      `select ${clientColumns} from oauth_clients where tenant_id = $1 order by sandbox_client desc, created_at, client_id`,
      [tenantId],
    );
    return rows.map((r) => view(toClient(r)));
  }

  async create(tenantId: string, input: ClientInput): Promise<OAuthClientView> {
    const secret = input.public ? undefined : newClientSecret();
    const rows = await this.db.query<ClientRow>(
      `insert into oauth_clients (client_id, tenant_id, public, name, redirect_uris, secret_hash, secret_hint, scope)
       select $1, $2, $3, $4, $5, $6, $7, $9
        where (select count(*) from oauth_clients where tenant_id = $2) < $8
       returning ${clientColumns}`,
      [
        newClientId(),
        tenantId,
        Boolean(input.public),
        input.name ?? null,
        input.redirectUris ?? [],
        secret?.hash ?? null,
        secret?.hint ?? null,
        maxClientsPerSandbox + 1,
        input.scope,
      ],
    );
    if (!rows[0])
      throw new ApiError(
        409,
        'client_limit_reached',
        `A sandbox holds at most ${maxClientsPerSandbox} registered clients besides its own; delete one first.`,
      );
    return view(toClient(rows[0]), secret?.secret);
  }

  /**
   * A new secret for a confidential client (its own included): shown in full this once, the old one
   * refused at once. Its holder gets every scope of the client, so `mayHold` sees them first (SPEC §3).
   */
  async rotateSecret(
    tenantId: string,
    clientId: string,
    mayHold: (scopes: readonly string[]) => void,
  ): Promise<OAuthClientView> {
    const client = await this.get(tenantId, clientId);
    mayHold(client.scopes);
    if (client.public) throw new ApiError(409, 'public_client', 'A public client has no secret to rotate.');
    const secret = newClientSecret();
    const [row] = await this.db.query<ClientRow>(
      `update oauth_clients set secret_hash = $3, secret_hint = $4 where tenant_id = $1 and client_id = $2 returning ${clientColumns}`,
      [tenantId, clientId, secret.hash, secret.hint],
    );
    if (!row) throw notFound('OAuth client');
    return view(toClient(row), secret.secret);
  }

  /** Deletes a registered client and revokes every token it was issued; the sandbox's own client stays. */
  async remove(tenantId: string, clientId: string): Promise<void> {
    const client = await this.get(tenantId, clientId);
    if (client.sandboxClient)
      throw new ApiError(
        409,
        'sandbox_client',
        "The sandbox's own client cannot be deleted; rotate its secret instead.",
      );
    await this.db.transaction(async (tx) => {
      await this.tokens.revokeClient(tx, tenantId, clientId);
      await tx.query('delete from oauth_codes where tenant_id = $1 and client_id = $2', [tenantId, clientId]);
      await tx.query('delete from oauth_clients where tenant_id = $1 and client_id = $2', [tenantId, clientId]);
    });
  }

  /** The sandbox's own credentials client. */
  async sandboxClient(tenantId: string): Promise<OAuthClient> {
    const [row] = await this.db.query<ClientRow>(
      `select ${clientColumns} from oauth_clients where tenant_id = $1 and sandbox_client`,
      [tenantId],
    );
    if (!row) throw notFound('sandbox');
    return toClient(row);
  }

  private async get(tenantId: string, clientId: string): Promise<OAuthClient> {
    const [row] = await this.db.query<ClientRow>(
      `select ${clientColumns} from oauth_clients where tenant_id = $1 and client_id = $2`,
      [tenantId, clientId],
    );
    if (!row) throw notFound('OAuth client');
    return toClient(row);
  }
}
