import type { z } from 'zod';
import { ApiError, validationFailed, type FieldError } from '../shared/problem.ts';

const escapePointer = (part: PropertyKey) => String(part).replace(/~/g, '~0').replace(/\//g, '~1');
export const jsonPointer = (path: readonly PropertyKey[]) => path.map((p) => `/${escapePointer(p)}`).join('');

/**
 * Parses input against a schema. Unknown fields are a 400 `unknown_field` even when other
 * errors are present (SPEC §2); everything else is a 422 `validation_failed` with errors[].
 */
export function parseInput<S extends z.ZodType>(schema: S, input: unknown, where: 'body' | 'query' | 'path' = 'body'): z.output<S> {
  const result = schema.safeParse(input);
  if (result.success) return result.data;
  const unknown: FieldError[] = [];
  const errors: FieldError[] = [];
  for (const issue of result.error.issues) {
    if (issue.code === 'unrecognized_keys') {
      for (const key of issue.keys) unknown.push({ path: jsonPointer([...issue.path, key]), message: 'Unknown field.' });
    } else {
      errors.push({ path: jsonPointer(issue.path), message: issue.message });
    }
  }
  if (unknown.length > 0) {
    const list = unknown.map((e) => e.path).join(', ');
    throw new ApiError(400, 'unknown_field', `Unknown field${unknown.length > 1 ? 's' : ''} in the ${where}: ${list}.`, { errors: unknown });
  }
  throw validationFailed(errors);
}
