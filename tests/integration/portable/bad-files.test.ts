import assert from 'node:assert/strict';
import { request } from 'node:http';
import { Readable } from 'node:stream';
import { test } from 'node:test';
import { promisify } from 'node:util';
import { gzip, gzipSync } from 'node:zlib';
import { createSandbox, problem, useEngine } from '../../helpers/engine.ts';
import { linesOf, resealed } from '../../helpers/hostile-files.ts';
import { exportBytes, importBytes } from '../../helpers/portable.ts';
import { placeOrder } from '../../helpers/webhooks.ts';

// A small import limit, so that refusing an oversized upload by counting costs a few MiB of loopback traffic.
const limit = 8 * 2 ** 20;
const engine = useEngine({ maxImportBytes: limit });

let file: Promise<Buffer> | undefined;
/** A real sandbox file: a seeded sandbox with an order and its event. */
const good = () =>
  (file ??= (async () => {
    const sb = await createSandbox(engine.url, 'Bad files');
    await placeOrder(sb);
    return exportBytes(engine.url, sb);
  })());

/** How many rows the database holds in all, so a refused import provably left nothing behind. */
async function footprint(): Promise<string> {
  const [row] = await engine.running.services.db.query(
    `select (select count(*) from tenants) as tenants, (select count(*) from orders) as orders, (select count(*) from events) as events,
            (select count(*) from deliveries) as deliveries, (select count(*) from oauth_clients) as clients`,
  );
  return JSON.stringify(row);
}

async function refused(body: Buffer, status: number, code: string): Promise<any> {
  const before = await footprint();
  const res = await importBytes(engine.url, body);
  const p = problem(res, status, code);
  assert.equal(await footprint(), before, 'nothing was imported');
  return p;
}

test('a file cut short is refused as truncated, naming where it ends', async () => {
  const bytes = await good();
  const p = await refused(bytes.subarray(0, Math.floor(bytes.length / 2)), 422, 'import_truncated');
  assert.match(p.detail, /truncated: the compressed data ends early \(at line \d+/);
  assert.ok(p.where.line > 1);
  const lines = linesOf(bytes);
  const noEnd = await refused(
    gzipSync(
      lines
        .slice(0, -1)
        .map((l) => `${l}\n`)
        .join(''),
    ),
    422,
    'import_truncated',
  );
  assert.match(noEnd.detail, /ends without its end line/);
  assert.equal(noEnd.where.line, lines.length);
});

test('a flipped byte is refused as damaged: in the compressed data, or in the content (the SHA-256 of the end line)', async () => {
  const original = await good();
  // Anywhere past gzip's 10-byte header: in the deflate stream (its first line included), its CRC-32 or its length.
  for (let i = 0; i <= 12; i++) {
    const bytes = Buffer.from(original);
    const at = i === 0 ? 40 : i === 12 ? bytes.length - 1 : 10 + Math.floor(((bytes.length - 11) * i) / 12);
    bytes[at] ^= 0x01;
    const p = await refused(bytes, 422, 'import_corrupt');
    assert.match(p.detail, /compressed data is damaged|SHA-256/, `byte ${at}`);
  }
  const lines = linesOf(await good());
  const i = lines.findIndex((l) => l.includes('"ord_0001"'));
  lines[i] = lines[i].replace('"ord_0001"', '"ord_0002"').replace('"placed"', '"plaaed"');
  const body = gzipSync(lines.map((l) => `${l}\n`).join(''));
  const content = await refused(body, 422, 'import_corrupt');
  assert.match(content.detail, /does not match the SHA-256 in its end line \(at line \d+\)/);
  assert.equal(content.where.line, lines.length);
});

test('a file of a newer format version is refused, saying which versions this Sandbay reads', async () => {
  const lines = linesOf(await good());
  lines[0] = JSON.stringify({ ...JSON.parse(lines[0]), version: 2, sandbayVersion: '9.0.0' });
  const p = await refused(await resealed(lines), 422, 'import_version_unsupported');
  assert.match(
    p.detail,
    /format version 2 \(written by Sandbay 9\.0\.0\); this Sandbay reads versions up to 1: upgrade Sandbay/,
  );
  assert.deepEqual(p.where, { line: 1 });
});

test('rows whose keys collide are refused, naming the table and the key; nothing of the file is kept', async () => {
  const lines = linesOf(await good());
  const i = lines.findIndex((l) => l.startsWith('{"r":{"id":"cus_0002"'));
  lines.splice(i + 3, 0, lines[i]);
  const p = await refused(await resealed(lines), 409, 'import_conflict');
  assert.match(p.detail, /repeats the key of another: .*\(id\)=\(cus_0002\) already exists/);
  assert.equal(p.where.table, 'customers');
});

test('a file importing twice makes two sandboxes: ids are per sandbox, install-wide tokens are issued anew', async () => {
  const bytes = await good();
  const first = await importBytes(engine.url, bytes);
  const second = await importBytes(engine.url, bytes);
  assert.equal(first.status, 201);
  assert.equal(second.status, 201);
  assert.notEqual(first.body.sandbox.id, second.body.sandbox.id);
  assert.deepEqual(first.body.sandbox.counts, second.body.sandbox.counts);
});

test('what is not a sandbox file is refused: JSON, another gzip file, an unknown column', async () => {
  const json = await importBytes(engine.url, Buffer.from('{"hello":1}'), { contentType: 'application/json' });
  problem(json, 415, 'unsupported_media_type');
  await refused(Buffer.from('plain text, not gzip'), 422, 'import_not_sandbox_file');
  await refused(gzipSync('{"hello":"world"}\n'), 422, 'import_not_sandbox_file');
  const lines = linesOf(await good());
  const i = lines.findIndex((l) => l.startsWith('{"table":"vendors"'));
  lines[i] = lines[i].replace('"columns":["id"', '"columns":["id","favourite_colour"');
  const p = await refused(await resealed(lines), 422, 'import_malformed');
  assert.match(p.detail, /unknown column\(s\) favourite_colour of table vendors/);
});

test('an end line without its hash or counts is refused as malformed, naming the line (not a 500)', async () => {
  const lines = linesOf(await good());
  const end = JSON.parse(lines.at(-1)!).end;
  for (const broken of [{ rows: end.rows, lines: end.lines }, { sha256: end.sha256 }, {}]) {
    const body = gzipSync(`${[...lines.slice(0, -1), JSON.stringify({ end: broken })].join('\n')}\n`);
    const p = await refused(body, 422, 'import_malformed');
    assert.match(p.detail, /the end line lacks its hash or counts/, JSON.stringify(broken));
    assert.equal(p.where.line, lines.length);
  }
});

/** 2 GiB of bytes made as they are read: nothing of it is ever held or written. */
function twoGiB(): Readable {
  const chunk = Buffer.alloc(2 ** 20, 0x61);
  let sent = 0;
  return new Readable({
    read() {
      sent += chunk.length;
      this.push(sent > 2 * 2 ** 30 ? null : chunk);
    },
  });
}

/** Sends a body with node:http (the answer may come before the body is done) and resolves with the answer. */
function upload(body: Readable, headers: Record<string, string>): Promise<{ status: number; body: any; sent: number }> {
  return new Promise((resolve, reject) => {
    let sent = 0;
    const req = request(
      `${engine.url}/api/v1/sandboxes/import`,
      { method: 'POST', headers: { 'content-type': 'application/gzip', ...headers } },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          body.destroy();
          resolve({ status: res.statusCode!, body: JSON.parse(Buffer.concat(chunks).toString('utf8')), sent });
        });
      },
    );
    req.on('error', reject);
    body.on('data', (c: Buffer) => (sent += c.length));
    body.pipe(req);
  });
}

test('a 2 GiB file is refused with 413 naming the limit: by its Content-Length before a byte is read, or by counting', async () => {
  const before = await footprint();
  const declared = await upload(twoGiB(), { 'content-length': String(2 * 2 ** 30) });
  assert.equal(declared.status, 413);
  assert.equal(declared.body.code, 'payload_too_large');
  assert.match(declared.body.detail, /over the import limit of 8388608 bytes \(8 MiB\)/);
  const counted = await upload(twoGiB(), { 'transfer-encoding': 'chunked' });
  assert.equal(counted.status, 413);
  assert.equal(counted.body.limit, limit);
  assert.ok(counted.sent < 2 ** 30, `the server stopped reading early (${counted.sent} bytes sent)`);
  assert.equal(await footprint(), before);
});

test('a small file that inflates past the limit of what a file may hold is refused as too large', async () => {
  const [header] = linesOf(await good());
  const row = `{"r":{"id":"ven_${'x'.repeat(60_000)}"}}\n`;
  const rows = Buffer.alloc(Math.ceil((264 * 2 ** 20) / row.length) * row.length, row);
  // Compressed off the event loop: blocked for seconds under load, it let the engine (in this process) time
  // out the idle keep-alive connection just as fetch reused it (ECONNRESET instead of the 413).
  const bomb = await promisify(gzip)(
    Buffer.concat([Buffer.from(`${header}\n{"table":"vendors","columns":["id"]}\n`), rows]),
    { level: 1 },
  );
  assert.ok(bomb.length < limit);
  const p = await refused(bomb, 413, 'payload_too_large');
  assert.match(p.detail, /uncompressed sandbox file is over the import limit/);
});
