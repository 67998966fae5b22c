// The inspector's API types are the server's response schemas: inferred from the same zod schemas
// (src/shared/schemas), which the routes answer with and the OpenAPI document is built from. The type-level
// half fails `npm run typecheck`; the runtime half fails when a route answers with another schema.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { z } from 'zod';
import type * as api from '../../src/shared/api-types.ts';
import type { CheckRun } from '../../src/shared/check-report.ts';
import * as shared from '../../src/shared/schemas/index.ts';
import type { RouteDef } from '../../src/server/route.ts';
import { catcherRoutes } from '../../src/server/routes/catcher.ts';
import { checkRoutes } from '../../src/server/routes/checks.ts';
import { clockRoutes } from '../../src/server/routes/clock.ts';
import { jobRoutes } from '../../src/server/routes/jobs.ts';
import { oauthClientRoutes } from '../../src/server/routes/oauth-clients.ts';
import { paymentRoutes } from '../../src/server/routes/payments.ts';
import { sandboxRoutes } from '../../src/server/routes/sandboxes.ts';
import { sessionRoutes } from '../../src/server/routes/session.ts';
import { webhookRoutes } from '../../src/server/routes/webhooks.ts';
import type * as catcherSchemas from '../../src/server/schemas/catcher.ts';
import type * as checkSchemas from '../../src/server/schemas/checks.ts';
import type * as oauthSchemas from '../../src/server/schemas/oauth-clients.ts';
import type * as paymentSchemas from '../../src/server/schemas/payments.ts';
import type * as sandboxSchemas from '../../src/server/schemas/sandbox.ts';
import type * as webhookSchemas from '../../src/server/schemas/webhooks.ts';

/** True only when A and B are the same type (not merely assignable either way). */
type Equal<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;
type Out<S extends z.ZodType> = z.output<S>;
/** The schemas the server's routes import, wherever each is defined. */
type server = typeof catcherSchemas &
  typeof checkSchemas &
  typeof oauthSchemas &
  typeof paymentSchemas &
  typeof sandboxSchemas &
  typeof webhookSchemas;

// Each API type is exactly what the server's response schema produces.
const agree: [
  Equal<api.Sandbox, Out<server['Sandbox']>>,
  Equal<api.SandboxSummary, Out<server['SandboxSummary']>>,
  Equal<api.CreatedSandbox, Out<server['CreatedSandbox']>>,
  Equal<api.ResetResult, Out<server['ResetResult']>>,
  Equal<api.PortalSecrets, Out<server['SandboxCredentials']>>,
  Equal<api.OAuthClientView, Out<server['OAuthClient']>>,
  Equal<api.MintedToken, Out<server['MintedToken']>>,
  Equal<api.SessionState, Out<server['Session']>>,
  Equal<api.Endpoint, Out<server['Endpoint']>>,
  Equal<api.DeliverySummary, Out<server['DeliverySummary']>>,
  Equal<api.Delivery, Out<server['Delivery']>>,
  Equal<api.Attempt, Out<server['Attempt']>>,
  Equal<api.DlqReplayJob, Out<server['DlqReplayJob']>>,
  Equal<api.TestWebhookResult, Out<server['TestWebhookResult']>>,
  Equal<api.Clock, Out<server['Clock']>>,
  Equal<api.AdvancedClock, Out<server['AdvancedClock']>>,
  Equal<api.LiveSecret[], Out<server['LiveSecrets']>['data']>,
  Equal<api.TestCard, Out<server['TestCard']>>,
  Equal<api.Catcher, Out<server['Catcher']>>,
  Equal<api.CaughtRequest, Out<server['CaughtRequest']>>,
  Equal<api.CheckCaseInfo[], Out<server['CheckCases']>['data']>,
  Equal<CheckRun, Out<server['CheckRun']>>,
  Equal<api.Problem, Out<typeof shared.Problem>>,
] = [
  true,
  true,
  true,
  true,
  true,
  true,
  true,
  true,
  true,
  true,
  true,
  true,
  true,
  true,
  true,
  true,
  true,
  true,
  true,
  true,
  true,
  true,
  true,
];

// And the comparison has teeth: a field added to a schema, or a type with one field fewer, is not equal.
type WithExtra = Out<server['Endpoint']> & { signature: string };
const teeth: [Equal<api.Endpoint, WithExtra>, Equal<Omit<api.Endpoint, 'chaos'>, Out<server['Endpoint']>>] = [
  false,
  false,
];

test('the API types and the response schemas agree (checked by the type-check)', () => {
  assert.ok(agree.every(Boolean) && !teeth.some(Boolean));
});

/** Stands in for the services: route factories may pick parts of it while building, but nothing runs. */
const untouchable: never = new Proxy(() => {}, {
  get: () => untouchable,
  apply: () => assert.fail('a route factory ran a service while building its definitions'),
}) as never;
const routes: RouteDef[] = [
  ...sandboxRoutes(untouchable, untouchable),
  ...sessionRoutes(untouchable, { shared: false, auth: () => untouchable, openSandboxCreation: true }),
  ...clockRoutes(untouchable),
  ...jobRoutes(untouchable),
  ...webhookRoutes(untouchable),
  ...checkRoutes(untouchable),
  ...catcherRoutes(untouchable, untouchable),
  ...paymentRoutes(untouchable),
  ...oauthClientRoutes(untouchable, untouchable),
];

/** The schema an operation answers with on one status (the `data` items' schema of a list). */
function responseSchema(operationId: string, status: number, list = false): z.ZodType {
  const route = routes.find((r) => r.operationId === operationId);
  assert.ok(route, `no route ${operationId}`);
  const spec = route.responses?.[status];
  const schema = (spec && 'schema' in spec ? spec.schema : spec) as z.ZodType | undefined;
  assert.ok(schema, `${operationId} declares no ${status} response`);
  if (!list) return schema;
  const data = (schema as z.ZodObject).shape.data as z.ZodArray;
  return data.element as z.ZodType;
}

test('the routes the inspector reads answer with exactly the shared schemas its types come from', () => {
  const expectations: [string, number, z.ZodType, boolean?][] = [
    ['getSandbox', 200, shared.Sandbox],
    ['listSandboxes', 200, shared.SandboxSummary, true],
    ['createSandbox', 201, shared.CreatedSandbox],
    ['getSandboxCredentials', 200, shared.SandboxCredentials],
    ['mintSandboxToken', 201, shared.MintedToken],
    ['rotateOAuthClientSecret', 200, shared.OAuthClient],
    ['resetSandbox', 200, shared.ResetResult],
    ['getSession', 200, shared.Session],
    ['signIn', 200, shared.Session],
    ['getClock', 200, shared.Clock],
    ['advanceClock', 200, shared.AdvancedClock],
    ['listDeliveries', 200, shared.DeliverySummary, true],
    ['listDeadLetters', 200, shared.DeliverySummary, true],
    ['getDelivery', 200, shared.Delivery],
    ['retryDelivery', 200, shared.Delivery],
    ['replayDelivery', 200, shared.Delivery],
    ['replayDeadLetter', 200, shared.Delivery],
    ['createWebhookEndpoint', 201, shared.Endpoint],
    ['updateWebhookEndpoint', 200, shared.Endpoint],
    ['rotateWebhookSecret', 200, shared.Endpoint],
    ['getWebhookSecrets', 200, shared.LiveSecrets],
    ['getCheckSecrets', 200, shared.LiveSecrets],
    ['getDeadLetterReplay', 200, shared.DlqReplayJob],
    ['listDeadLetterReplays', 200, shared.DlqReplayJob, true],
    ['sendTestWebhook', 202, shared.TestWebhookResult],
    ['listCatchers', 200, shared.Catcher, true],
    ['putCatcher', 200, shared.Catcher],
    ['listCaughtRequests', 200, shared.CaughtRequest, true],
    ['listCheckCases', 200, shared.CheckCases],
    ['listFailedJobs', 200, shared.FailedJob, true],
    ['retryFailedJob', 202, shared.FailedJob],
  ];
  for (const [operationId, status, schema, list] of expectations) {
    assert.equal(responseSchema(operationId, status, list), schema, `${operationId} ${status}`);
  }
  // The check runs narrow the shared shape's case ids to the battery's; every field is the shared one's.
  const run = responseSchema('getCheck', 200) as z.ZodObject;
  assert.deepEqual(Object.keys(run.shape), Object.keys(shared.CheckRun.shape));
});
