// The zod schemas of what the API answers, shared by the server (which validates with them and builds the
// OpenAPI document from them) and the inspector (whose types are inferred from them: ../api-types.ts).
// Pure zod: nothing else of the project, so the renderer may depend on them.
import { z } from 'zod';

export const Timestamp = z.string().describe('RFC 3339 UTC timestamp ending in Z');

/** `{ data, nextCursor }` for a list of `item`. */
export const listOf = <T extends z.ZodType>(item: T) =>
  z.object({ data: z.array(item), nextCursor: z.string().nullable() });

/** RFC 9457 problem details, as every error of the API (but /oauth/token's) is answered; extension members allowed. */
export const Problem = z
  .looseObject({
    type: z.string(),
    title: z.string(),
    status: z.number().int(),
    detail: z.string(),
    code: z.string().describe('Stable, snake_case'),
    errors: z
      .array(
        z.object({
          path: z.string().describe('JSON Pointer to the field, e.g. /items/0/quantity'),
          message: z.string(),
        }),
      )
      .optional(),
    suggestions: z
      .array(z.string())
      .optional()
      .describe(
        'With unknown_topic: the topics (or subscription patterns) the input most likely meant, best first; empty when none is close',
      ),
  })
  .meta({ id: 'Problem' });
