import { z } from 'zod';
import { checkCases } from '../../webhooks/check/cases.ts';
import * as shared from '../../shared/schemas/checks.ts';
import { httpUrl, SigningScheme } from './webhooks.ts';

const effectsUrl = httpUrl
  .optional()
  .describe(
    'GET returning the receiver\'s count of processed events (a bare number or {"count": n}); the duplicate case then checks the count rose by one, not two.',
  );

export const EndpointCheckRequest = z.object({ effectsUrl }).strict().meta({ id: 'EndpointCheckRequest' });

export const UrlCheckRequest = z
  .object({
    url: httpUrl.describe('The receiver to check'),
    secret: z
      .string()
      .min(1)
      .max(200)
      .optional()
      .describe("The secret the receiver verifies with (default: the sandbox's webhookTestSecret)"),
    signature: z
      .enum(['sandbay', 'standard-webhooks'])
      .optional()
      .describe(
        'The scheme to sign with (default sandbay). standard-webhooks-ed25519 needs a key pair: check a registered endpoint that uses it instead.',
      ),
    effectsUrl,
    allowInsecureTls: z.boolean().optional().describe('Accept a self-signed certificate on an https receiver.'),
  })
  .strict()
  .meta({ id: 'UrlCheckRequest' });

// The report's shape is shared with the inspector; here its case ids become the battery's, for the OpenAPI document.
const caseIds = checkCases.map((c) => c.id) as [string, ...string[]];
export const CheckCaseResult = shared.CheckCaseResult.extend({
  id: z.enum(caseIds).describe('The case (JUnit testcase name)'),
}).meta({ id: 'CheckCaseResult' });
export const CheckReport = shared.CheckReport.extend({ cases: z.array(CheckCaseResult) }).meta({ id: 'CheckReport' });
export const CheckRun = shared.CheckRun.extend({ report: CheckReport }).meta({ id: 'CheckRun' });

export const checkParams = z.object({ id: z.string().min(1).max(100), checkId: z.string().min(1).max(100) });
export const checkIdParam = z.object({ checkId: z.string().min(1).max(100) });

export { CheckCases } from '../../shared/schemas/checks.ts';

export const CheckCasesQuery = z.object({
  signature: SigningScheme.optional().describe(
    "Word the cases for this scheme (default sandbay): Standard Webhooks' headers, webhook-timestamp, webhook-id",
  ),
});
