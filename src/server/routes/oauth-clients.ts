import { z } from 'zod';
import type { OAuthClients } from '../../domain/oauth/client-registry.ts';
import { notFound } from '../../shared/problem.ts';
import { tenantOf } from '../auth/principal.ts';
import { assertHolds, grantableScope } from '../auth/scope-ceiling.ts';
import { route } from '../route.ts';
import {
  ClientIdParam,
  ClientRequest,
  MintedToken,
  OAuthClient,
  SandboxCredentials,
  TokenMintRequest,
} from '../schemas/oauth-clients.ts';
import type { Services } from '../services.ts';

const tags = ['Sandboxes'];

/**
 * The sandbox's credentials and OAuth clients (SPEC §3): its own client's id and secret hint, new
 * tokens without the secret, registered confidential and public clients, secret rotation.
 */
export const oauthClientRoutes = (s: Services, clients: OAuthClients) => [
  route({
    method: 'get',
    path: '/api/v1/sandbox/credentials',
    operationId: 'getSandboxCredentials',
    credentials: true,
    tags,
    access: 'sandbox',
    scope: 'sandbox:write',
    summary:
      "The sandbox's own OAuth client (its secret's hint: the secret is shown once) and webhook test secret, for the developer portal.",
    responses: { 200: SandboxCredentials },
    handler: async ({ principal }) => {
      const secrets = await s.sandboxes.secrets(tenantOf(principal));
      if (!secrets) throw notFound('sandbox');
      return { body: secrets };
    },
  }),
  route({
    method: 'post',
    path: '/api/v1/sandbox/tokens',
    operationId: 'mintSandboxToken',
    tags,
    access: 'sandbox',
    scope: 'sandbox:write',
    summary:
      "A new access token of the sandbox's own client, with the caller's scopes or fewer (what `sandbay token` prints).",
    body: TokenMintRequest,
    responses: { 201: MintedToken },
    errors: { 422: ['scope_not_allowed'] },
    secretFields: ['accessToken'],
    handler: async ({ body, principal }) => {
      const tenantId = tenantOf(principal);
      const scope = grantableScope(principal, body.scope);
      const own = await clients.sandboxClient(tenantId);
      const issued = await s.tokens.issue(s.db, {
        tenantId,
        clientId: own.clientId,
        scope,
        accessTtl: body.expiresIn,
        refresh: false,
      });
      return {
        status: 201,
        body: {
          accessToken: issued.accessToken,
          tokenType: 'Bearer' as const,
          expiresIn: issued.expiresIn,
          scope: issued.scope,
        },
      };
    },
  }),
  route({
    method: 'get',
    path: '/api/v1/sandbox/oauth-clients',
    operationId: 'listOAuthClients',
    tags,
    access: 'sandbox',
    scope: 'sandbox:read',
    summary: "The sandbox's OAuth clients: its own first, then the registered ones (no secrets).",
    responses: { 200: z.object({ data: z.array(OAuthClient), nextCursor: z.null() }) },
    handler: async ({ principal }) => ({ body: { data: await clients.list(tenantOf(principal)), nextCursor: null } }),
  }),
  route({
    method: 'post',
    path: '/api/v1/sandbox/oauth-clients',
    operationId: 'createOAuthClient',
    tags,
    access: 'sandbox',
    scope: 'sandbox:write',
    summary:
      'Register a client: confidential (the answer shows its secret, this once) or public (no secret; PKCE required).',
    body: ClientRequest,
    responses: { 201: OAuthClient },
    errors: { 409: ['client_limit_reached'], 422: ['scope_not_allowed'] },
    secretFields: ['clientSecret'],
    handler: async ({ body, principal }) => ({
      status: 201,
      body: await clients.create(tenantOf(principal), { ...body, scope: grantableScope(principal, body.scope) }),
    }),
  }),
  route({
    method: 'post',
    path: '/api/v1/sandbox/oauth-clients/:clientId/rotate-secret',
    operationId: 'rotateOAuthClientSecret',
    tags,
    access: 'sandbox',
    scope: 'sandbox:write',
    summary:
      "A new secret for a confidential client (the sandbox's own included), shown this once; the old one stops working at once. Its tokens stay valid.",
    params: ClientIdParam,
    responses: { 200: OAuthClient },
    errors: { 409: ['public_client'] },
    secretFields: ['clientSecret'],
    handler: async ({ params, principal }) => ({
      body: await clients.rotateSecret(tenantOf(principal), params.clientId, (scopes) =>
        assertHolds(principal, scopes, "A client's new secret"),
      ),
    }),
  }),
  route({
    method: 'delete',
    path: '/api/v1/sandbox/oauth-clients/:clientId',
    operationId: 'deleteOAuthClient',
    tags,
    access: 'sandbox',
    scope: 'sandbox:write',
    summary:
      "Delete a registered client and revoke every token it was issued (the sandbox's own client cannot be deleted).",
    params: ClientIdParam,
    idempotent: false,
    errors: { 409: ['sandbox_client'] },
    responses: { 204: { description: 'Deleted' } },
    handler: async ({ params, principal }) => {
      await clients.remove(tenantOf(principal), params.clientId);
      return { status: 204 };
    },
  }),
];
