/**
 * How each language's standard JSON serialiser writes the same value. A receiver that parses
 * the body and serialises it again before verifying accepts exactly the bodies its serialiser
 * would write unchanged, so sending one event in each of these forms (the receiver check's
 * probes) names the serialiser; and the doctor reads the same features off the bytes a
 * receiver says it verified.
 */

export type JsonFormId = 'javascript' | 'ruby' | 'rails' | 'python' | 'python-compact' | 'php' | 'go';

export interface JsonForm {
  id: JsonFormId;
  /** The serialiser, as its users call it. */
  label: string;
  /** What gives it away in the bytes. */
  features: string;
  /** The language whose fix applies (see receiver-fixes.ts). */
  language: 'node' | 'ruby' | 'python' | 'php' | 'go';
  /** Separator after a comma / a colon. */
  itemSeparator: ', ' | ',';
  keySeparator: ': ' | ':';
  /** Non-ASCII characters written as \uXXXX (lowercase hex). */
  asciiOnly: boolean;
  /** "/" written as "\/". */
  escapesSlash: boolean;
  /** <, > and & written as \u003c, \u003e, \u0026 (and U+2028/9 escaped). */
  escapesHtml: boolean;
  /** Object keys sorted (a map, not an ordered dict). */
  sortsKeys: boolean;
  /** A float with an integral value keeps its ".0" (the parsed value stays a float). */
  keepsFloatPoint: boolean;
}

const form = (f: JsonForm) => f;

/**
 * In the order the receiver check tries them: a body written by Ruby's generator is also a
 * fixed point of JSON.stringify except for its floats, so Ruby is asked first.
 */
export const jsonForms: readonly JsonForm[] = [
  form({
    id: 'ruby',
    label: "Ruby's to_json / JSON.generate",
    features: 'compact, UTF-8 as is, 0.0 kept as 0.0',
    language: 'ruby',
    itemSeparator: ',',
    keySeparator: ':',
    asciiOnly: false,
    escapesSlash: false,
    escapesHtml: false,
    sortsKeys: false,
    keepsFloatPoint: true,
  }),
  form({
    id: 'rails',
    label: "Rails' to_json (ActiveSupport)",
    features: 'compact, <, > and & escaped as \\u003c, \\u003e, \\u0026, 0.0 kept',
    language: 'ruby',
    itemSeparator: ',',
    keySeparator: ':',
    asciiOnly: false,
    escapesSlash: false,
    escapesHtml: true,
    sortsKeys: false,
    keepsFloatPoint: true,
  }),
  form({
    id: 'python',
    label: "Python's json.dumps (default separators)",
    features: '", " and ": " separators, non-ASCII as \\u escapes',
    language: 'python',
    itemSeparator: ', ',
    keySeparator: ': ',
    asciiOnly: true,
    escapesSlash: false,
    escapesHtml: false,
    sortsKeys: false,
    keepsFloatPoint: true,
  }),
  // What a receiver writes that copied a "compact" signing snippet: json.dumps(event, separators=(",", ":")).
  form({
    id: 'python-compact',
    label: 'Python\'s json.dumps with separators=(",", ":")',
    features: 'compact, non-ASCII as \\u escapes, "/" as is, 0.0 kept',
    language: 'python',
    itemSeparator: ',',
    keySeparator: ':',
    asciiOnly: true,
    escapesSlash: false,
    escapesHtml: false,
    sortsKeys: false,
    keepsFloatPoint: true,
  }),
  form({
    id: 'php',
    label: "PHP's json_encode",
    features: 'compact, "/" escaped as "\\/", non-ASCII as \\u escapes',
    language: 'php',
    // 0.0 loses its point unless JSON_PRESERVE_ZERO_FRACTION is given.
    itemSeparator: ',',
    keySeparator: ':',
    asciiOnly: true,
    escapesSlash: true,
    escapesHtml: false,
    sortsKeys: false,
    keepsFloatPoint: false,
  }),
  form({
    id: 'go',
    label: "Go's encoding/json (into a map)",
    features: 'keys sorted, <, > and & escaped as \\u003c, \\u003e, \\u0026',
    language: 'go',
    itemSeparator: ',',
    keySeparator: ':',
    asciiOnly: false,
    escapesSlash: false,
    escapesHtml: true,
    sortsKeys: true,
    keepsFloatPoint: false,
  }),
  form({
    id: 'javascript',
    label: "JavaScript's JSON.stringify (a body parser's object, serialised again)",
    features: 'compact, UTF-8 as is, 0.0 written as 0',
    language: 'node',
    itemSeparator: ',',
    keySeparator: ':',
    asciiOnly: false,
    escapesSlash: false,
    escapesHtml: false,
    sortsKeys: false,
    keepsFloatPoint: false,
  }),
];

export const jsonFormById = (id: JsonFormId): JsonForm => jsonForms.find((f) => f.id === id)!;

/** A number written with a decimal point even when integral (1.0): a float to Python, PHP and Ruby. */
export class JsonFloat {
  constructor(readonly value: number) {}

  /** JSON.stringify writes it as the plain number (as JavaScript and Go do). */
  toJSON(): number {
    return this.value;
  }
}

const hex4 = (code: number) => `\\u${code.toString(16).padStart(4, '0')}`;
const shortEscapes: Record<string, string> = {
  '"': '\\"',
  '\\': '\\\\',
  '\b': '\\b',
  '\f': '\\f',
  '\n': '\\n',
  '\r': '\\r',
  '\t': '\\t',
};

function writeString(text: string, f: JsonForm): string {
  let out = '"';
  for (const ch of text) {
    const code = ch.codePointAt(0)!;
    if (shortEscapes[ch]) out += shortEscapes[ch];
    else if (code < 0x20) out += hex4(code);
    else if (ch === '/' && f.escapesSlash) out += '\\/';
    else if (f.escapesHtml && (ch === '<' || ch === '>' || ch === '&' || code === 0x2028 || code === 0x2029))
      out += hex4(code);
    // Python also escapes DEL; astral characters become a surrogate pair.
    else if (f.asciiOnly && code >= 0x7f)
      out +=
        code > 0xffff
          ? hex4(0xd800 + ((code - 0x10000) >> 10)) + hex4(0xdc00 + ((code - 0x10000) & 0x3ff))
          : hex4(code);
    else out += ch;
  }
  return `${out}"`;
}

function writeNumber(n: number, float: boolean, f: JsonForm): string {
  const text = JSON.stringify(n);
  return float && f.keepsFloatPoint && Number.isInteger(n) ? `${text}.0` : text;
}

/** Writes `value` as the serialiser `f` would (JsonFloat marks floats; no indentation: the defaults). */
export function writeJson(value: unknown, f: JsonForm): string {
  if (value instanceof JsonFloat) return writeNumber(value.value, true, f);
  if (typeof value === 'string') return writeString(value, f);
  if (typeof value === 'number') return writeNumber(value, false, f);
  if (value === null || typeof value === 'boolean') return JSON.stringify(value);
  if (Array.isArray(value)) return `[${value.map((v) => writeJson(v, f)).join(f.itemSeparator)}]`;
  if (typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>).filter(([, v]) => v !== undefined);
    if (f.sortsKeys) entries.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${writeString(k, f)}${f.keySeparator}${writeJson(v, f)}`).join(f.itemSeparator)}}`;
  }
  throw new TypeError(`writeJson: cannot write ${typeof value}`);
}

/**
 * The serialiser whose output these bytes are, when they are the JSON of `reference` (same value,
 * other bytes) re-serialised by one of the known forms; undefined when none writes exactly them.
 * Without a reference, the text's own value is used (a form that re-writes the text unchanged).
 */
export function identifyJsonForm(text: string, reference?: string): JsonForm | undefined {
  let value: unknown;
  try {
    value = JSON.parse(reference ?? text);
  } catch {
    return undefined;
  }
  if (reference !== undefined && !sameJson(reference, text)) return undefined;
  // Floats that were written 1.0 in the original keep their point in forms that keep it.
  const floats = withFloats(value, reference ?? text);
  return jsonForms.find((f) => writeJson(floats, f) === text);
}

/** Whether two texts are the same JSON value (object key order ignored). */
export function sameJson(a: string, b: string): boolean {
  try {
    return canonical(JSON.parse(a)) === canonical(JSON.parse(b));
  } catch {
    return false;
  }
}

function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value && typeof value === 'object') {
    return `{${Object.keys(value)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonical((value as Record<string, unknown>)[k])}`)
      .join(',')}}`;
  }
  return JSON.stringify(value);
}

// Marks the numbers a text writes as "<digits>.0" as floats, so a float-keeping form writes them back alike.
function withFloats(value: unknown, text: string): unknown {
  const integralFloats = new Set([...text.matchAll(/[:[,]\s*(-?\d+)\.0+(?=[\s,\]}])/g)].map((m) => Number(m[1])));
  if (integralFloats.size === 0) return value;
  const walk = (v: unknown): unknown => {
    if (typeof v === 'number') return integralFloats.has(v) ? new JsonFloat(v) : v;
    if (Array.isArray(v)) return v.map(walk);
    if (v && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, walk(x)]));
    return v;
  };
  return walk(value);
}
