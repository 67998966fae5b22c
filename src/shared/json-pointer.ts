import type { FieldError } from './problem.ts';

const escapePointer = (part: PropertyKey) => String(part).replace(/~/g, '~0').replace(/\//g, '~1');

/** A JSON Pointer (RFC 6901) from a path of keys and indexes: ['items', 0, 'quantity'] → /items/0/quantity. */
export const jsonPointer = (path: readonly PropertyKey[]) => path.map((p) => `/${escapePointer(p)}`).join('');

// PostgreSQL cannot store U+0000 in text, nor a lone UTF-16 surrogate in json: either would
// fail inside a query (a 5xx), so they are refused with the rest of the validation.
const unstorable = /[\u0000\p{Cs}]/u;
const unstorableMessage = 'Must be valid Unicode text without the NUL character (U+0000) or a lone surrogate.';

/** JSON Pointers of every string (or object key) PostgreSQL could not store, anywhere in a parsed value. */
export function unstorablePaths(value: unknown, path: PropertyKey[] = [], out: FieldError[] = []): FieldError[] {
  if (typeof value === 'string') {
    if (unstorable.test(value)) out.push({ path: jsonPointer(path), message: unstorableMessage });
  } else if (Array.isArray(value)) {
    value.forEach((item, i) => unstorablePaths(item, [...path, i], out));
  } else if (value && typeof value === 'object') {
    for (const [key, item] of Object.entries(value)) {
      if (unstorable.test(key)) out.push({ path: jsonPointer([...path, key]), message: unstorableMessage });
      unstorablePaths(item, [...path, key], out);
    }
  }
  return out;
}
