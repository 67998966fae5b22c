/** One difference between two JSON values, at a JSON Pointer. */
export interface JsonChange {
  path: string;
  kind: 'added' | 'removed' | 'changed';
  before?: unknown;
  after?: unknown;
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const escape = (key: string) => key.replace(/~/g, '~0').replace(/\//g, '~1');

/**
 * What changed from `before` to `after`, leaf by leaf, as JSON Pointers (objects key by key, arrays
 * index by index): what the inspector shows before an edited delivery is resent.
 */
export function jsonChanges(before: unknown, after: unknown, path = ''): JsonChange[] {
  if (Array.isArray(before) && Array.isArray(after)) {
    const changes: JsonChange[] = [];
    for (let i = 0; i < Math.max(before.length, after.length); i++) {
      const at = `${path}/${i}`;
      if (i >= after.length) changes.push({ path: at, kind: 'removed', before: before[i] });
      else if (i >= before.length) changes.push({ path: at, kind: 'added', after: after[i] });
      else changes.push(...jsonChanges(before[i], after[i], at));
    }
    return changes;
  }
  if (isObject(before) && isObject(after)) {
    const changes: JsonChange[] = [];
    for (const key of Object.keys(before)) {
      const at = `${path}/${escape(key)}`;
      if (!Object.hasOwn(after, key)) changes.push({ path: at, kind: 'removed', before: before[key] });
      else changes.push(...jsonChanges(before[key], after[key], at));
    }
    for (const key of Object.keys(after))
      if (!Object.hasOwn(before, key))
        changes.push({ path: `${path}/${escape(key)}`, kind: 'added', after: after[key] });
    return changes;
  }
  return JSON.stringify(before) === JSON.stringify(after) ? [] : [{ path, kind: 'changed', before, after }];
}
