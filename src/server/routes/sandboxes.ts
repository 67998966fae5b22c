import type { Context } from 'koa';
import { ApiError, notFound } from '../../shared/problem.ts';
import { allScopes } from '../../shared/scopes.ts';
import { tenantOf } from '../auth/principal.ts';
import { assertHolds } from '../auth/scope-ceiling.ts';
import { listQuery } from '../pagination.ts';
import { route } from '../route.ts';
import { listOf } from '../schemas/common.ts';
import {
  CreatedSandbox,
  CreateSandboxRequest,
  ResetRequest,
  ResetResult,
  Sandbox,
  SandboxSummary,
} from '../schemas/sandbox.ts';
import type { Services } from '../services.ts';
import { pageOf } from './paging.ts';

const tags = ['Sandboxes'];

/** Who may create sandboxes: anyone (a laptop, or a shared server opened by its operator), or the admin key only. */
export interface SandboxCreation {
  open: boolean;
  isAdmin: (ctx: Context) => boolean;
}

/** A request that may not make a sandbox here (a shared server kept to its operator) is 403 sandbox_creation_closed. */
export function assertMayCreate(creation: SandboxCreation, ctx: Context): void {
  if (creation.open || creation.isAdmin(ctx)) return;
  throw new ApiError(
    403,
    'sandbox_creation_closed',
    "On this shared server sandboxes are created by its operator (POST /api/v1/sandboxes with the admin key, or `sandbay token --new`). Ask them for your sandbox's client ID and secret, and sign in with those.",
  );
}

export const sandboxRoutes = (s: Services, creation: SandboxCreation) => [
  route({
    method: 'post',
    path: '/api/v1/sandboxes',
    operationId: 'createSandbox',
    credentials: true,
    tags,
    access: 'none',
    summary:
      "Create and seed a sandbox (no token, no signup); returns its credentials. A shared server's operator may keep this to the admin key.",
    body: CreateSandboxRequest,
    idempotent: false,
    errors: { 403: ['sandbox_creation_closed'] },
    responses: { 201: CreatedSandbox },
    handler: async ({ body, ctx }) => {
      assertMayCreate(creation, ctx);
      return { status: 201, body: await s.sandboxes.create(body.name) };
    },
  }),
  route({
    method: 'get',
    path: '/api/v1/sandboxes',
    operationId: 'listSandboxes',
    tags,
    access: 'admin',
    summary: 'List every sandbox (admin key only).',
    query: listQuery,
    responses: { 200: listOf(SandboxSummary) },
    handler: async (input) => ({ body: await pageOf(s, input, (page) => s.sandboxes.list(page.limit, page.after)) }),
  }),
  route({
    method: 'get',
    path: '/api/v1/sandbox',
    operationId: 'getSandbox',
    tags,
    access: 'sandbox',
    scope: 'sandbox:read',
    summary: "The caller's sandbox with object counts.",
    responses: { 200: Sandbox },
    handler: async ({ principal }) => {
      const sandbox = await s.sandboxes.get(tenantOf(principal));
      if (!sandbox) throw notFound('sandbox');
      return { body: sandbox };
    },
  }),
  route({
    method: 'post',
    path: '/api/v1/sandbox/reset',
    operationId: 'resetSandbox',
    credentials: true,
    tags,
    access: 'sandbox',
    scope: 'sandbox:write',
    summary:
      'Restore factory defaults: commerce data, clock and delivery log (endpoints and tokens survive unless scope is all).',
    // Not replayed: a scope:all response carries fresh tokens, which are only ever stored hashed;
    // repeating a reset reaches the same defaults anyway.
    body: ResetRequest,
    responses: { 200: ResetResult },
    idempotent: false,
    handler: async ({ body, principal }) => {
      // Fresh credentials carry every scope: only a caller holding them all may have them (SPEC §3).
      if (body.scope === 'all') assertHolds(principal, allScopes, 'A reset with scope all');
      return { body: await s.sandboxes.reset(tenantOf(principal), body.scope === 'all') };
    },
  }),
  route({
    method: 'delete',
    path: '/api/v1/sandbox',
    operationId: 'deleteSandbox',
    tags,
    access: 'sandbox',
    scope: 'sandbox:write',
    summary: 'Delete the sandbox and everything in it.',
    idempotent: false,
    responses: { 204: { description: 'Deleted' } },
    handler: async ({ principal }) => {
      await s.sandboxes.remove(tenantOf(principal));
      return { status: 204 };
    },
  }),
];
