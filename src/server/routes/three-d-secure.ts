import type { Context } from 'koa';
import { z } from 'zod';
import { decideChallenge, findChallenge } from '../../domain/payments/challenge.ts';
import { toMajor } from '../../shared/money.ts';
import { ApiError } from '../../shared/problem.ts';
import { decodeBody, readRawBody } from '../body.ts';
import { redirectMedia, route } from '../route.ts';
import type { Services } from '../services.ts';
import { escapeHtml, page } from './oauth-pages.ts';

const tags = ['Payments'];

// The token rides in the query (GET) and the form (POST), never in the path: request logs carry paths.
const challengeParams = z.object({ id: z.string().min(1).max(100) });

function html(ctx: Context, status: number, body: string): void {
  ctx.status = status;
  ctx.type = 'html';
  ctx.set('Cache-Control', 'no-store');
  ctx.set('Content-Security-Policy', "default-src 'none'; style-src 'unsafe-inline'; form-action 'self' http: https:");
  ctx.body = body;
}

const gone = () =>
  page(
    '3-D Secure',
    '<h1>No such challenge</h1><p>This 3-D Secure challenge does not exist or was already decided.</p>',
  );

/** The sandbox bank's 3-D Secure page: the shopper approves or fails the payment (SPEC: test cards). */
export const threeDSecureRoutes = (s: Services) => [
  route({
    method: 'get',
    path: '/3ds/:id',
    operationId: 'threeDSecurePage',
    tags,
    access: 'none',
    raw: true,
    params: challengeParams,
    summary: "The 3-D Secure challenge page a requires_action payment's nextAction.url opens.",
    query: z.object({ token: z.string().max(200).optional() }),
    responses: {
      200: { description: 'Challenge page', contentType: 'text/html' },
      404: { description: 'Unknown or decided challenge', contentType: 'text/html' },
    },
    handler: async ({ ctx, params, query }) => {
      try {
        const c = await findChallenge(s, params.id, query.token ?? '');
        html(
          ctx,
          200,
          page(
            '3-D Secure',
            `
  <h1>Sandbay test bank · 3-D Secure</h1>
  <p>Confirm the payment of <strong>${toMajor(c.amountMinor).toFixed(2)} ${escapeHtml(c.currency)}</strong> with the card ending in <code>${escapeHtml(c.last4)}</code>.</p>
  <p>This is a test challenge: no code is needed.</p>
  <form method="post" action="/3ds/${escapeHtml(params.id)}"><input type="hidden" name="token" value="${escapeHtml(query.token ?? '')}">
    <div class="actions">
      <button type="submit" name="outcome" value="approve">Approve</button>
      <button type="submit" name="outcome" value="fail">Fail authentication</button>
    </div>
  </form>`,
          ),
        );
      } catch (err) {
        if (!(err instanceof ApiError)) throw err;
        html(ctx, 404, gone());
      }
      return {};
    },
  }),
  route({
    method: 'post',
    path: '/3ds/:id',
    operationId: 'threeDSecureDecision',
    tags,
    access: 'none',
    raw: true,
    idempotent: false,
    params: challengeParams,
    accepts: ['form'],
    summary: "The challenge page's Approve / Fail; redirects to the payment's returnUrl when it has one.",
    responses: {
      200: { description: 'Result page', contentType: 'text/html' },
      303: { description: 'Back to returnUrl with payment_id and status', contentType: redirectMedia },
      404: { description: 'Unknown or decided challenge', contentType: 'text/html' },
      409: { description: 'The payment cannot be completed any more', contentType: 'text/html' },
    },
    // The handler reads the form itself (decodeBody): its refusals are problem details.
    errors: {
      400: ['malformed_json'],
      413: ['payload_too_large'],
      415: ['unsupported_media_type'],
      422: ['validation_failed'],
    },
    handler: async ({ ctx, params }) => {
      const form = decodeBody(await readRawBody(ctx.req), ctx.req, ['form']);
      const outcome = form.outcome === 'approve' ? 'approve' : 'fail';
      try {
        const c = await findChallenge(s, params.id, typeof form.token === 'string' ? form.token : '');
        const payment = await decideChallenge(s, c.tenantId, params.id, outcome, s.baseUrl());
        if (c.returnUrl) {
          const back = new URL(c.returnUrl);
          back.searchParams.set('payment_id', payment.id);
          back.searchParams.set('status', payment.status);
          ctx.status = 303;
          ctx.redirect(back.toString());
          return {};
        }
        const done =
          payment.status === 'captured'
            ? 'The payment was approved and captured.'
            : 'Authentication failed; the payment was declined.';
        html(
          ctx,
          200,
          page(
            '3-D Secure',
            `<h1>${escapeHtml(done)}</h1><p>Payment <code>${escapeHtml(payment.id)}</code> is now <strong>${escapeHtml(payment.status)}</strong>. You can close this page.</p>`,
          ),
        );
      } catch (err) {
        if (!(err instanceof ApiError)) throw err;
        html(
          ctx,
          err.status === 404 ? 404 : 409,
          err.status === 404
            ? gone()
            : page('3-D Secure', `<h1>Cannot complete this payment</h1><p>${escapeHtml(err.detail)}</p>`),
        );
      }
      return {};
    },
  }),
];
