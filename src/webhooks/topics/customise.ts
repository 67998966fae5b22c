import { ApiError, type FieldError } from '../../shared/problem.ts';
import type { Topic } from '../../shared/topics.ts';
import { topicDataSchemas } from './schemas.ts';

/** One change to a sample's data, as JSON Patch (RFC 6902) has it; paths are JSON Pointers into `data`. */
export interface DataPatchOp {
  op: 'add' | 'replace' | 'remove';
  path: string;
  value?: unknown;
}

/** What a test webhook changes in its topic's sample (SPEC §11): a JSON merge patch, then patch operations. */
export interface SampleChanges {
  data?: Record<string, unknown>;
  patch?: DataPatchOp[];
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

// Keys come from users ("__proto__" included): always own data properties, never a prototype's setter or a walk into
// one.
const setOwn = (object: Record<string, unknown>, key: string, value: unknown) =>
  Object.defineProperty(object, key, { value, writable: true, enumerable: true, configurable: true });
const ownValue = (object: Record<string, unknown>, key: string) =>
  Object.hasOwn(object, key) ? object[key] : undefined;

/** RFC 7396: objects merge key by key, null removes a key, anything else replaces. */
export function mergePatch(target: unknown, patch: unknown): unknown {
  if (!isObject(patch)) return patch;
  const out: Record<string, unknown> = isObject(target) ? { ...target } : {};
  for (const [key, value] of Object.entries(patch)) {
    if (value === null) delete out[key];
    else setOwn(out, key, mergePatch(ownValue(out, key), value));
  }
  return out;
}

const unescape = (part: string) => part.replace(/~1/g, '/').replace(/~0/g, '~');

/** RFC 6901 segments of a pointer; undefined when it is not one. */
const segmentsOf = (pointer: string) =>
  pointer === '' ? [] : pointer.startsWith('/') ? pointer.slice(1).split('/').map(unescape) : undefined;

class PatchFailure extends Error {}

/** Applies one operation in place to `root` (the data object), as RFC 6902 defines add, replace and remove. */
function apply(root: Record<string, unknown>, op: DataPatchOp): void {
  const segments = segmentsOf(op.path);
  if (!segments) throw new PatchFailure(`${op.path} is not a JSON Pointer (write /items/0/quantity)`);
  if (segments.length === 0)
    throw new PatchFailure('the whole data cannot be replaced by a patch; send it as data instead');
  if (op.op !== 'remove' && op.value === undefined) throw new PatchFailure(`${op.op} needs a value`);
  let parent: unknown = root;
  for (const [depth, key] of segments.slice(0, -1).entries()) {
    const container = parent;
    parent = Array.isArray(container)
      ? /^\d+$/.test(key)
        ? container[Number(key)]
        : undefined
      : isObject(container)
        ? ownValue(container, key)
        : undefined;
    if (!Array.isArray(parent) && !isObject(parent)) {
      const where = `/${segments.slice(0, depth + 1).join('/')}`;
      throw new PatchFailure(
        Array.isArray(container)
          ? `no element ${where} in the sample (the array has ${container.length})`
          : `no object ${where} in the sample`,
      );
    }
  }
  const last = segments[segments.length - 1];
  if (Array.isArray(parent)) {
    const append = last === '-' && op.op === 'add';
    const index = append ? parent.length : /^(0|[1-9]\d*)$/.test(last) ? Number(last) : -1;
    const bound = op.op === 'add' ? parent.length : parent.length - 1;
    if (index < 0 || index > bound)
      throw new PatchFailure(`no element ${op.path} in the sample (the array has ${parent.length})`);
    if (op.op === 'add') parent.splice(index, 0, op.value);
    else if (op.op === 'replace') parent[index] = op.value;
    else parent.splice(index, 1);
    return;
  }
  const object = parent as Record<string, unknown>;
  const exists = Object.hasOwn(object, last);
  if (op.op !== 'add' && !exists)
    throw new PatchFailure(
      `no field ${op.path} in the sample${op.op === 'replace' ? ' to override (--add adds one)' : ''}`,
    );
  if (op.op === 'remove') delete object[last];
  else setOwn(object, last, op.value);
}

const pointerOf = (path: readonly PropertyKey[]) =>
  path.map((p) => `/${String(p).replace(/~/g, '~0').replace(/\//g, '~1')}`).join('');

/**
 * A topic's sample with a user's changes (`sandbay trigger --override/--add/--data`, the test
 * webhook's data and patch), checked against the topic's schema: a 422 validation_failed naming each
 * path under /data, never a malformed delivery. Fields the schema does not declare may be added
 * (a receiver should tolerate new fields, and that is worth testing); declared ones keep their types.
 */
export function customiseSample(topic: Topic, sample: unknown, changes: SampleChanges): unknown {
  const data = structuredClone(changes.data ? mergePatch(sample, changes.data) : sample);
  const errors: FieldError[] = [];
  for (const [i, op] of (changes.patch ?? []).entries()) {
    try {
      if (!isObject(data)) throw new PatchFailure('the data is not an object');
      apply(data, op);
    } catch (err) {
      if (!(err instanceof PatchFailure)) throw err;
      errors.push({ path: `/patch/${i}/path`, message: `${op.op} ${op.path}: ${err.message}` });
    }
  }
  if (errors.length === 0) {
    const checked = topicDataSchemas[topic].safeParse(data);
    if (!checked.success) {
      for (const issue of checked.error.issues)
        errors.push({ path: `/data${pointerOf(issue.path)}`, message: issue.message });
    }
  }
  if (errors.length > 0) {
    const list = errors.map((e) => `${e.path}: ${e.message}`).join('; ');
    throw new ApiError(
      422,
      'validation_failed',
      `The changed ${topic} data does not match the topic's schema: ${list}.`,
      { errors },
    );
  }
  return data;
}
