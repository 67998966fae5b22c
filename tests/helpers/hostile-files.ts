import { createHash } from 'node:crypto';
import { promisify } from 'node:util';
import { gunzipSync, gzip } from 'node:zlib';

// Compressed off the event loop: a test's own server shares it, and a loop blocked for seconds would let an
// idle keep-alive connection time out just as the client reuses it (ECONNRESET).
const gzipped = promisify(gzip);

/**
 * Hostile sandbox files made from a real export (SPEC §12: a file is untrusted input): each edit is
 * re-sealed (the end line's counts and SHA-256 recomputed), so only the rules of the import can
 * refuse it, never the checksum. Used by tests/integration/portable/hostile-files.test.ts and the
 * portable bench.
 */

export interface HostileFile {
  name: string;
  /** Made when asked: a corpus is walked one file at a time. */
  body: () => Promise<Buffer>;
}

export const linesOf = (bytes: Buffer) => gunzipSync(bytes).toString('utf8').split('\n').slice(0, -1);

/** The file's lines as gzip, its end line rewritten to match them (a deliberate, consistent edit). */
export function resealed(lines: string[]): Promise<Buffer> {
  return gzipped(sealedText(lines), { level: 1 });
}

function sealedText(lines: string[]): string {
  const body = lines
    .slice(0, -1)
    .map((l) => `${l}\n`)
    .join('');
  const rows: Record<string, number> = {};
  let table = '';
  for (const l of lines.slice(1, -1)) {
    if (l.startsWith('{"r"')) rows[table] = (rows[table] ?? 0) + 1;
    else table = JSON.parse(l).table;
  }
  const end = { end: { rows, lines: lines.length - 1, sha256: createHash('sha256').update(body).digest('hex') } };
  return `${body}${JSON.stringify(end)}\n`;
}

/** Tables whose rows refer to each other by design (a delivery's attempts, an endpoint's secrets): kept whole. */
const kept = new Set([
  'webhook_endpoints',
  'webhook_secrets',
  'catchers',
  'catcher_requests',
  'events',
  'deliveries',
  'attempts',
]);

/** The export with at most two rows of each other table: every kind of row, a small file (a fast corpus). */
function trimmed(lines: string[]): string[] {
  const out: string[] = [];
  let table = '';
  let n = 0;
  for (const line of lines.slice(0, -1)) {
    if (!line.startsWith('{"r"')) {
      table = JSON.parse(line).table ?? '';
      n = 0;
    } else if (!kept.has(table) && ++n > 2) continue;
    out.push(line);
  }
  return [...out, lines.at(-1)!];
}

/** A value of another JSON type than `value`. */
function wrongType(value: unknown): unknown {
  if (typeof value === 'string') return 12345;
  if (typeof value === 'number') return 'twelve';
  if (typeof value === 'boolean') return 'yes';
  if (Array.isArray(value)) return { not: 'a list' };
  if (value && typeof value === 'object') return 'an object?';
  return [1, 2];
}

const isTime = (value: unknown) => typeof value === 'string' && /^\d{4}-\d\d-\d\dT\d\d:\d\d/.test(value);
const farFuture = '+275760-09-13T00:00:00.000Z';
const farPast = '-271821-04-20T00:00:00.000Z';
const huge = 'x'.repeat(3 * 2 ** 20);

/** Where each table's first row is, and its columns' values. */
function firstRows(lines: string[]): { table: string; at: number; row: Record<string, unknown> }[] {
  const out: { table: string; at: number; row: Record<string, unknown> }[] = [];
  let table = '';
  for (let i = 1; i < lines.length - 1; i++) {
    if (!lines[i].startsWith('{"r"')) table = JSON.parse(lines[i]).table;
    else if (out.at(-1)?.table !== table) out.push({ table, at: i, row: JSON.parse(lines[i]).r });
  }
  return out;
}

/**
 * The corpus: in the first row of every table, every field of the wrong type; the first text field
 * empty and huge; the first timestamp far in the past and the future; then the rules the engine
 * relies on (schemes, topics, chaos, URLs, names, the clock), prototype keys, rows of 8 MiB, many
 * tiny rows, and gzip bombs.
 */
export function* hostileCorpus(exported: Buffer, options: { manyRows: number }): Generator<HostileFile> {
  const lines = trimmed(linesOf(exported));
  yield { name: 'the export itself, trimmed', body: () => resealed(lines) };
  const edit = (name: string, at: number, line: string): HostileFile => {
    const copy = [...lines];
    copy[at] = line;
    return { name, body: () => resealed(copy) };
  };
  const row = (at: number, r: Record<string, unknown>) => JSON.stringify({ r });
  const rows = firstRows(lines);
  for (const { table, at, row: r } of rows) {
    for (const [column, value] of Object.entries(r))
      yield edit(`${table}.${column}: wrong type`, at, row(at, { ...r, [column]: wrongType(value) }));
    const text = Object.keys(r).find((c) => typeof r[c] === 'string' && !isTime(r[c]));
    if (text) {
      yield edit(`${table}.${text}: empty`, at, row(at, { ...r, [text]: '' }));
      yield edit(`${table}.${text}: 3 MiB`, at, row(at, { ...r, [text]: huge }));
    }
    const time = Object.keys(r).find((c) => isTime(r[c]));
    if (time) {
      yield edit(`${table}.${time}: far future`, at, row(at, { ...r, [time]: farFuture }));
      yield edit(`${table}.${time}: far past`, at, row(at, { ...r, [time]: farPast }));
    }
    yield edit(
      `${table}: __proto__ key`,
      at,
      `{"r":${JSON.stringify(r).replace(/^\{/, '{"__proto__":{"polluted":true},')}}`,
    );
  }
  const first = (table: string) => rows.find((r) => r.table === table)!;
  const rules: [string, string, Record<string, unknown>][] = [
    ['webhook_endpoints', 'an unknown signing scheme', { signature: ['nope'] }],
    ['webhook_endpoints', 'an unknown topic', { topics: ['order.nope'] }],
    [
      'webhook_endpoints',
      'chaos out of range',
      { chaos: { duplicateRate: 5, reorderWindowMs: 0, delayMs: 0, seed: 1 } },
    ],
    ['webhook_endpoints', 'a URL that is not http', { url: 'ftp://example.test/hook' }],
    ['webhook_endpoints', 'a loopback URL', { url: 'http://127.0.0.1:9/hook' }],
    ['deliveries', 'an unknown topic', { topic: 'order.nope' }],
    ['deliveries', 'an unknown status', { status: 'stuck' }],
    ['deliveries', 'a negative attempt count', { attempt_count: -1 }],
    ['events', 'an unknown topic', { topic: 'nope' }],
    ['catchers', 'a name the API refuses', { name: 'Not A Name!' }],
  ];
  for (const [table, what, change] of rules) {
    if (!rows.some((r) => r.table === table)) continue; // a source without such rows
    const { at, row: r } = first(table);
    yield edit(`${table}: ${what}`, at, row(at, { ...r, ...change }));
  }
  const header = JSON.parse(lines[0]);
  for (const [what, change] of [
    ['a clock in the year 275760', { clock: { ...header.clock, now: farFuture } }],
    ['a clock far in the past', { clock: { ...header.clock, now: '1000-01-01T00:00:00.000Z' } }],
    ['a name of 10,000 characters', { sandbox: { ...header.sandbox, name: 'n'.repeat(10_000) } }],
    ['a webhook test secret that is not one', { webhookTestSecret: 'whsec_!' }],
  ] as const)
    yield edit(`header: ${what}`, 0, JSON.stringify({ ...header, ...change }));

  // Rows of 8 MiB in a few hundred KB: refused at the first, by the length of its line or the inflated size.
  const caught = first('catcher_requests');
  const bigRow = row(0, { ...caught.row, body: `\\x${'61'.repeat(4 * 2 ** 20)}` });
  yield {
    name: '8 rows of 8 MiB',
    body: () =>
      resealed([...lines.slice(0, caught.at), ...Array<string>(8).fill(bigRow), ...lines.slice(caught.at + 1)]),
  };

  // Many tiny rows, each valid: an import whose memory must follow bytes, not rows.
  const audit = first('audit_log');
  yield {
    name: `${options.manyRows} tiny rows`,
    body: () => {
      const many = Array.from({ length: options.manyRows }, (_, i) => row(0, { ...audit.row, id: `aud_many_${i}` }));
      return resealed([...lines.slice(0, audit.at), ...many, ...lines.slice(audit.at)]);
    },
  };

  // Gzip bombs: short lines that inflate far past the upload, and one endless line.
  const filler = `{"r":${JSON.stringify({ ...audit.row, id: 'aud_bomb' })}}\n`;
  yield {
    name: 'gzip bomb of short lines',
    body: () =>
      gzipped(`${lines.slice(0, audit.at).join('\n')}\n${filler.repeat(Math.ceil((64 * 2 ** 20) / filler.length))}`),
  };
  yield {
    name: 'gzip bomb of one endless line',
    body: () => gzipped(`${lines[0]}\n${' '.repeat(64 * 2 ** 20)}`),
  };
}
