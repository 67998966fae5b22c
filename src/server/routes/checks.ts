import { casesFor } from '../../webhooks/check/cases.ts';
import { wordsFor } from '../../webhooks/check/words.ts';
import { effectsUrlCounter, type StartedCheck } from '../../webhooks/check/checks.ts';
import { tenantOf } from '../auth/principal.ts';
import { listQuery } from '../pagination.ts';
import { route } from '../route.ts';
import {
  CheckCases,
  CheckCasesQuery,
  CheckRun,
  checkIdParam,
  checkParams,
  EndpointCheckRequest,
  UrlCheckRequest,
} from '../schemas/checks.ts';
import { idParam, listOf } from '../schemas/common.ts';
import { LiveSecrets } from '../schemas/webhooks.ts';
import type { Services } from '../services.ts';
import { seqPage } from './paging.ts';

const tags = ['Receiver checks'];
// A refused receiver or effects URL (shared mode's outbound policy), or an eleventh check at once.
const checkErrors = { 422: ['blocked_by_policy'], 429: ['too_many_checks'] } as const;
const answersAtOnce =
  'Answers 202 with the run at once; follow it with GET (report.cases fills up) or the live stream (check.updated).';

/** Receiver checks (SPEC §10): run the battery against an endpoint or a bare URL, and read the stored runs. */
export const checkRoutes = (s: Services) => {
  const { checks, checkRuns, sender } = s.webhooks;
  const { policy, shares } = s.webhooks.outbound;
  /** Starts a check in one of the sandbox's check slots (shared mode: 429 past ten at once); the run frees it. */
  const started = async (tenantId: string, start: (release: () => void) => Promise<StartedCheck>) => {
    const release = shares.startCheck(tenantId);
    try {
      return (await start(release)).run;
    } catch (err) {
      release();
      throw err;
    }
  };
  const effects = async (url: string | undefined) => {
    if (!url) return undefined;
    await policy.assertAllowed(url, '/effectsUrl');
    return effectsUrlCounter(url, sender);
  };
  return [
    route({
      method: 'get',
      path: '/api/v1/webhooks/check-cases',
      operationId: 'listCheckCases',
      tags,
      access: 'sandbox',
      scope: 'webhooks:read',
      summary:
        'The battery: each case in the order it runs, what it sends, the bug it guards against and what passes (worded for a scheme).',
      query: CheckCasesQuery,
      responses: { 200: CheckCases },
      handler: ({ query }) => ({
        body: {
          data: casesFor(wordsFor([query.signature ?? 'sandbay'])).map((c) => ({
            id: c.id,
            sends: c.sends,
            guards: c.guards,
            expected: c.expected({ effects: true }),
          })),
        },
      }),
    }),
    route({
      method: 'post',
      path: '/api/v1/webhooks/endpoints/:id/checks',
      operationId: 'checkWebhookEndpoint',
      tags,
      access: 'sandbox',
      scope: 'webhooks:write',
      awaitsNetwork: true,
      summary: `Run the receiver check against the endpoint's URL with its live secrets. ${answersAtOnce}`,
      params: idParam,
      body: EndpointCheckRequest,
      responses: { 202: CheckRun },
      errors: checkErrors,
      handler: async ({ params, body, principal }) => {
        const counter = await effects(body.effectsUrl);
        const run = await started(tenantOf(principal), (release) =>
          checks.ofEndpoint(tenantOf(principal), params.id, { effects: counter, release }),
        );
        return { status: 202, body: run };
      },
    }),
    route({
      method: 'get',
      path: '/api/v1/webhooks/endpoints/:id/checks',
      operationId: 'listWebhookEndpointChecks',
      tags,
      access: 'sandbox',
      scope: 'webhooks:read',
      summary: "The endpoint's newest check runs (ten are kept), newest first.",
      params: idParam,
      query: listQuery,
      responses: { 200: listOf(CheckRun) },
      handler: async (input) => {
        const { params, query } = input;
        const tenantId = tenantOf(input.principal);
        // The cursor is input: checked (422) before the endpoint is looked up (404), as on every list.
        const cursors = s.cursors.of(input, 'seq');
        const after = cursors.afterSeq(query.cursor);
        await s.webhooks.endpoints.get(s.db, tenantId, params.id);
        const rows = await checkRuns.list(tenantId, { endpointId: params.id }, query.limit + 1, after);
        return { body: seqPage(cursors, rows, query.limit) };
      },
    }),
    route({
      method: 'get',
      path: '/api/v1/webhooks/endpoints/:id/checks/:checkId',
      operationId: 'getWebhookEndpointCheck',
      tags,
      access: 'sandbox',
      scope: 'webhooks:read',
      summary: 'One check run of the endpoint, with its report so far.',
      params: checkParams,
      responses: { 200: CheckRun },
      handler: async ({ params, principal }) => ({
        body: await checkRuns.get(s.db, tenantOf(principal), params.checkId, params.id),
      }),
    }),
    route({
      method: 'post',
      path: '/api/v1/webhooks/checks',
      operationId: 'checkReceiverUrl',
      tags,
      access: 'sandbox',
      scope: 'webhooks:write',
      awaitsNetwork: true,
      summary: `Run the receiver check against a URL with a secret (\`sandbay check <url> --secret\`); its deliveries go to this sandbox's log. ${answersAtOnce}`,
      body: UrlCheckRequest,
      responses: { 202: CheckRun },
      errors: checkErrors,
      handler: async ({ body, principal }) => {
        await policy.assertAllowed(body.url, '/url');
        const counter = await effects(body.effectsUrl);
        const run = await started(tenantOf(principal), (release) =>
          checks.ofUrl(tenantOf(principal), {
            release,
            url: body.url,
            secret: body.secret,
            signature: body.signature,
            allowInsecureTls: body.allowInsecureTls,
            effects: counter,
          }),
        );
        return { status: 202, body: run };
      },
    }),
    route({
      method: 'get',
      path: '/api/v1/webhooks/checks',
      operationId: 'listChecks',
      tags,
      access: 'sandbox',
      scope: 'webhooks:read',
      summary: 'Every stored check run of the sandbox (of endpoints and bare URLs), newest first.',
      query: listQuery,
      responses: { 200: listOf(CheckRun) },
      handler: async (input) => {
        const cursors = s.cursors.of(input, 'seq');
        const rows = await checkRuns.list(
          tenantOf(input.principal),
          {},
          input.query.limit + 1,
          cursors.afterSeq(input.query.cursor),
        );
        return { body: seqPage(cursors, rows, input.query.limit) };
      },
    }),
    route({
      method: 'get',
      path: '/api/v1/webhooks/checks/:checkId',
      operationId: 'getCheck',
      tags,
      access: 'sandbox',
      scope: 'webhooks:read',
      summary: 'One check run, with its report so far.',
      params: checkIdParam,
      responses: { 200: CheckRun },
      handler: async ({ params, principal }) => ({
        body: await checkRuns.get(s.db, tenantOf(principal), params.checkId),
      }),
    }),
    route({
      method: 'get',
      path: '/api/v1/webhooks/checks/:checkId/secrets',
      operationId: 'getCheckSecrets',
      credentials: true,
      tags,
      access: 'sandbox',
      scope: 'webhooks:write',
      summary: 'The secret a check run signed with (for the signature breakdown of its deliveries).',
      params: checkIdParam,
      responses: { 200: LiveSecrets },
      handler: async ({ params, principal }) => ({
        body: { data: [{ ...(await checkRuns.secret(tenantOf(principal), params.checkId)), expiresAt: null }] },
      }),
    }),
  ];
};
