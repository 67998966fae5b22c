import type { z } from 'zod';
import { jsonPointer, unstorablePaths } from '../shared/json-pointer.ts';
import { ApiError, validationFailed, type FieldError } from '../shared/problem.ts';

/** Refuses text PostgreSQL could not store: a 422 naming each field, or a 404 for a path parameter. */
export function refuseUnstorable(value: unknown, where: 'body' | 'query' | 'path'): void {
  const fields = unstorablePaths(value);
  if (fields.length === 0) return;
  // No id holds such a character, so a path parameter with one names nothing.
  if (where === 'path') throw new ApiError(404, 'not_found', 'No such object.');
  throw validationFailed(fields);
}

/**
 * Parses input against a schema. Unknown fields are a 400 `unknown_field` even when other
 * errors are present (SPEC §2); everything else is a 422 `validation_failed` with errors[].
 */
export function parseInput<S extends z.ZodType>(
  schema: S,
  input: unknown,
  where: 'body' | 'query' | 'path' = 'body',
): z.output<S> {
  const result = schema.safeParse(input);
  if (result.success) {
    refuseUnstorable(result.data, where);
    return result.data;
  }
  const unknown: FieldError[] = [];
  const errors: FieldError[] = [];
  for (const issue of result.error.issues) {
    if (issue.code === 'unrecognized_keys') {
      for (const key of issue.keys)
        unknown.push({ path: jsonPointer([...issue.path, key]), message: 'Unknown field.' });
    } else {
      errors.push({ path: jsonPointer(issue.path), message: issue.message });
    }
  }
  if (unknown.length > 0) {
    const list = unknown.map((e) => e.path).join(', ');
    throw new ApiError(
      400,
      'unknown_field',
      `Unknown field${unknown.length > 1 ? 's' : ''} in the ${where}: ${list}.`,
      { errors: unknown },
    );
  }
  throw validationFailed(errors);
}
