import type { Context } from 'koa';
import { z } from 'zod';
import type { CatcherBehaviour } from '../../shared/api-types.ts';
import type { Catchers } from '../../webhooks/catcher/catchers.ts';
import { verifyCaught, type VerifyDeps } from '../../webhooks/catcher/verify.ts';
import { ApiError } from '../../shared/problem.ts';
import { tenantOf } from '../auth/principal.ts';
import { readRawBody } from '../body.ts';
import { listQuery } from '../pagination.ts';
import { route } from '../route.ts';
import { Catcher, CatcherName, CatcherRequest, CaughtRequest } from '../schemas/catcher.ts';
import { listOf } from '../schemas/common.ts';
import type { Services } from '../services.ts';

const tags = ['Catchers'];
const storedBodyChars = 64 * 1024;
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
async function answer(ctx: Context, name: string, b: CatcherBehaviour): Promise<number | null> {
  if (!(await wait(ctx, b.delayMs))) return null;
  if (b.mode === 'timeout') {
    if (!(await wait(ctx, holdTimeoutMs))) return null;
    ctx.status = 504;
    ctx.body = { error: 'the catcher held this request until its hold time ran out' };
    return 504;
  }
  if (b.mode === 'redirect') {
    ctx.redirect(`/catch/${name}/moved`);
    return ctx.status;
  }
  ctx.status = b.status;
  ctx.body = b.status < 300 ? { received: true } : { error: `simulated ${b.status} from catcher ${name}` };
  return b.status;
}

const headerRecord = (ctx: Context) =>
  Object.fromEntries(Object.entries(ctx.headers).map(([k, v]) => [k, Array.isArray(v) ? v.join(', ') : String(v ?? '')]));

/** The built-in catcher: configuration API (per sandbox) and the receivers at /catch/<name>. */
export const catcherRoutes = (s: Services, catchers: Catchers) => {
  const verifyDeps: VerifyDeps = { db: s.db, clock: s.clock, endpoints: s.webhooks.endpoints };
  return [
    route({
      method: 'get', path: '/api/v1/catchers', operationId: 'listCatchers', tags, access: 'sandbox', scope: 'webhooks:read',
      summary: "The sandbox's built-in catchers, by name.", query: listQuery, responses: { 200: listOf(Catcher) },
      handler: async (input) => {
        const cursors = s.cursors.of(input, 'name');
        const rows = await catchers.list(tenantOf(input.principal), input.query.limit + 1, cursors.decode(input.query.cursor)?.id);
        const page = cursors.page(rows.map((c) => ({ ...c, id: c.name })), input.query.limit, (c) => c.name);
        return { body: { data: page.data.map(({ id: _id, ...c }) => c), nextCursor: page.nextCursor } };
      },
    }),
    route({
      method: 'put', path: '/api/v1/catchers/:name', operationId: 'putCatcher', tags, access: 'sandbox', scope: 'webhooks:write',
      summary: 'Create a catcher at /catch/<name> or change how it answers (status, timeout or redirect, after a delay).',
      params: CatcherName, body: CatcherRequest, responses: { 200: Catcher, 201: Catcher },
      handler: async ({ params, body, principal }) => {
        const { catcher, created } = await catchers.put(tenantOf(principal), params.name, body);
        return { status: created ? 201 : 200, body: catcher };
      },
    }),
    route({
      method: 'get', path: '/api/v1/catchers/:name', operationId: 'getCatcher', tags, access: 'sandbox', scope: 'webhooks:read',
      summary: 'One catcher.', params: CatcherName, responses: { 200: Catcher },
      handler: async ({ params, principal }) => ({ body: await catchers.get(tenantOf(principal), params.name) }),
    }),
    route({
      method: 'delete', path: '/api/v1/catchers/:name', operationId: 'deleteCatcher', tags, access: 'sandbox', scope: 'webhooks:write',
      summary: 'Delete a catcher; /catch/<name> then answers 404.', params: CatcherName, idempotent: false,
      responses: { 204: { description: 'Deleted' } },
      handler: async ({ params, principal }) => {
        await catchers.remove(tenantOf(principal), params.name);
        return { status: 204 };
      },
    }),
    route({
      method: 'get', path: '/api/v1/catchers/:name/requests', operationId: 'listCaughtRequests', tags, access: 'sandbox', scope: 'webhooks:read',
      summary: 'What the catcher received (newest 50, newest first), each verified with the secret Sandbay signed it with.',
      params: CatcherName, responses: { 200: z.object({ data: z.array(CaughtRequest), nextCursor: z.null() }) },
      handler: async ({ params, principal }) => {
        await catchers.get(tenantOf(principal), params.name);
        return { body: { data: catchers.log.list(params.name).map(({ tenantId: _t, ...r }) => r), nextCursor: null } };
      },
    }),
    route({
      method: 'post', path: '/catch/:name', operationId: 'catch', tags, access: 'none', raw: true, params: CatcherName,
      summary: 'A built-in receiver: records and verifies the request, then answers as configured.',
      responses: { 200: { description: 'The configured status (any 200–599), a 302, or no answer at all' } },
      handler: async ({ ctx, params }) => {
        const catcher = await catchers.lookup(params.name);
        if (!catcher) {
          throw new ApiError(404, 'not_found', `No catcher named ${params.name}. Create it in the inspector (Webhooks → Endpoints) or with PUT /api/v1/catchers/${params.name}.`);
        }
        const raw = await readRawBody(ctx.req);
        const body = raw.toString('utf8');
        const headers = headerRecord(ctx);
        const verification = await verifyCaught(verifyDeps, catcher.tenantId, headers, body);
        const receivedAt = new Date(s.clock.real()).toISOString();
        const responseStatus = await answer(ctx, params.name, catcher);
        catchers.record(params.name, {
          tenantId: catcher.tenantId, receivedAt, method: ctx.method, headers, body: body.slice(0, storedBodyChars), bytes: raw.length,
          verification, responseStatus, delayMs: catcher.delayMs,
        });
        return {};
      },
    }),
  ];
};
