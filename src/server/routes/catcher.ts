import type { Context } from 'koa';
import { z } from 'zod';
import type { Catcher as CatcherState } from '../../shared/api-types.ts';
import type { Catchers } from '../../webhooks/catcher/catchers.ts';
import { senderIfAnotherSandbox, verifyCaught, type VerifyDeps } from '../../webhooks/catcher/verify.ts';
import { ApiError } from '../../shared/problem.ts';
import { tenantOf } from '../auth/principal.ts';
import { readRawBody } from '../body.ts';
import { listQuery } from '../pagination.ts';
import { redirectMedia, route } from '../route.ts';
import { Catcher, CatcherAddress, CatcherName, CatcherRequest, CaughtRequest } from '../schemas/catcher.ts';
import { listOf } from '../schemas/common.ts';
import type { Services } from '../services.ts';

const tags = ['Catchers'];
const CatcherFailure = z.object({ error: z.string() });
// A `timeout` catcher holds the request until the sender gives up (Sandbay's is 10 s), or this long.
const holdTimeoutMs = 60_000;

/** Resolves after `ms`, or early when the client goes away; true when the client is still there. */
function wait(ctx: Context, ms: number): Promise<boolean> {
  if (ms <= 0) return Promise.resolve(true);
  return new Promise((resolve) => {
    const gone = () => {
      clearTimeout(timer);
      resolve(false);
    };
    const timer = setTimeout(() => {
      ctx.res.off('close', gone);
      resolve(true);
    }, ms);
    ctx.res.once('close', gone);
  });
}

/** Answers as configured; returns the status sent (null when the request was left to time out). */
async function answer(ctx: Context, catcher: CatcherState): Promise<number | null> {
  if (!(await wait(ctx, catcher.delayMs))) return null;
  if (catcher.mode === 'timeout') {
    if (!(await wait(ctx, holdTimeoutMs))) return null;
    ctx.status = 504;
    ctx.body = { error: 'the catcher held this request until its hold time ran out' };
    return 504;
  }
  if (catcher.mode === 'redirect') {
    ctx.redirect(`${ctx.path}/moved`);
    return ctx.status;
  }
  ctx.status = catcher.status;
  ctx.body =
    catcher.status < 300 ? { received: true } : { error: `simulated ${catcher.status} from catcher ${catcher.name}` };
  return catcher.status;
}

const headerRecord = (ctx: Context) =>
  Object.fromEntries(
    Object.entries(ctx.headers).map(([k, v]) => [k, Array.isArray(v) ? v.join(', ') : String(v ?? '')]),
  );

/** The built-in catchers: configuration API and the receivers at /catch/<sandboxId>/<name>. */
export const catcherRoutes = (s: Services, catchers: Catchers) => {
  const verifyDeps: VerifyDeps = { db: s.db, clock: s.clock, endpoints: s.webhooks.endpoints };
  return [
    route({
      method: 'get',
      path: '/api/v1/catchers',
      operationId: 'listCatchers',
      tags,
      access: 'sandbox',
      scope: 'webhooks:read',
      summary: "The sandbox's built-in catchers, by name.",
      query: listQuery,
      responses: { 200: listOf(Catcher) },
      handler: async (input) => {
        const cursors = s.cursors.of(input, 'name');
        const rows = await catchers.list(
          tenantOf(input.principal),
          input.query.limit + 1,
          cursors.decode(input.query.cursor)?.id,
        );
        const page = cursors.page(
          rows.map((c) => ({ ...c, id: c.name })),
          input.query.limit,
          (c) => c.name,
        );
        return { body: { data: page.data.map(({ id: _id, ...c }) => c), nextCursor: page.nextCursor } };
      },
    }),
    route({
      method: 'put',
      path: '/api/v1/catchers/:name',
      operationId: 'putCatcher',
      tags,
      access: 'sandbox',
      scope: 'webhooks:write',
      errors: { 409: ['catcher_changing'] },
      summary:
        'Create a catcher, at the url it answers with (/catch/<sandboxId>/<name>), or change how it answers (status, timeout or redirect, after a delay).',
      params: CatcherName,
      body: CatcherRequest,
      responses: { 200: Catcher, 201: Catcher },
      handler: async ({ params, body, principal }) => {
        const { catcher, created } = await catchers.put(tenantOf(principal), params.name, body);
        return { status: created ? 201 : 200, body: catcher };
      },
    }),
    route({
      method: 'get',
      path: '/api/v1/catchers/:name',
      operationId: 'getCatcher',
      tags,
      access: 'sandbox',
      scope: 'webhooks:read',
      summary: 'One catcher.',
      params: CatcherName,
      responses: { 200: Catcher },
      handler: async ({ params, principal }) => ({ body: await catchers.get(tenantOf(principal), params.name) }),
    }),
    route({
      method: 'delete',
      path: '/api/v1/catchers/:name',
      operationId: 'deleteCatcher',
      tags,
      access: 'sandbox',
      scope: 'webhooks:write',
      summary: 'Delete a catcher and its log; its url then answers 404.',
      params: CatcherName,
      idempotent: false,
      responses: { 204: { description: 'Deleted' } },
      handler: async ({ params, principal }) => {
        await catchers.remove(tenantOf(principal), params.name);
        return { status: 204 };
      },
    }),
    route({
      method: 'get',
      path: '/api/v1/catchers/:name/requests',
      operationId: 'listCaughtRequests',
      tags,
      access: 'sandbox',
      scope: 'webhooks:read',
      summary:
        'What the catcher received (newest 50, newest first), each verified with the secret Sandbay signed it with.',
      params: CatcherName,
      responses: { 200: z.object({ data: z.array(CaughtRequest), nextCursor: z.null() }) },
      handler: async ({ params, principal }) => {
        await catchers.get(tenantOf(principal), params.name);
        return { body: { data: await catchers.log.list(tenantOf(principal), params.name), nextCursor: null } };
      },
    }),
    route({
      method: 'post',
      path: '/catch/:sandbox/:name',
      operationId: 'catch',
      tags,
      access: 'none',
      raw: true,
      params: CatcherAddress,
      summary: "A sandbox's built-in receiver: records and verifies the request, then answers as configured.",
      // The configured status (200–599) with a JSON note, a 302, or no answer at all (timeout).
      responses: {
        '2XX': { description: 'The configured success', schema: z.object({ received: z.literal(true) }) },
        302: { description: 'The redirect mode', contentType: redirectMedia },
        '4XX': { description: 'The configured failure', schema: CatcherFailure },
        '5XX': {
          description: 'The configured failure, or 504 when a timeout catcher gives up holding',
          schema: CatcherFailure,
        },
      },
      errors: { 413: ['payload_too_large'] },
      handler: async ({ ctx, params }) => {
        const catcher = await catchers.lookup(params.sandbox, params.name);
        if (!catcher) {
          throw new ApiError(
            404,
            'not_found',
            `No catcher ${params.name} in sandbox ${params.sandbox}. Create it in the inspector (Webhooks → Endpoints) or with PUT /api/v1/catchers/${params.name}, and use the url it answers with.`,
          );
        }
        const raw = await readRawBody(ctx.req);
        const body = raw.toString('utf8');
        const headers = headerRecord(ctx);
        // A delivery reaches only a catcher of its own sandbox (a URL copied from another sandbox fails the attempt).
        const sender = await senderIfAnotherSandbox(s.db, params.sandbox, headers, body);
        if (sender) {
          throw new ApiError(
            404,
            'not_found',
            `No catcher ${params.name} in sandbox ${sender}, which sent this delivery: this URL is another sandbox's catcher. Use one of ${sender}'s own (GET /api/v1/catchers).`,
          );
        }
        const verification = await verifyCaught(verifyDeps, params.sandbox, headers, body);
        const receivedAt = new Date(s.clock.real()).toISOString();
        const responseStatus = await answer(ctx, catcher);
        await catchers.log.add(params.sandbox, params.name, {
          receivedAt,
          method: ctx.method,
          headers,
          body: raw,
          bytes: raw.length,
          verification,
          responseStatus,
          delayMs: catcher.delayMs,
        });
        return {};
      },
    }),
  ];
};
