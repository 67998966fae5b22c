import assert from 'node:assert/strict';
import { Readable } from 'node:stream';
import { test } from 'node:test';
import { readSandboxFile } from '../../../src/domain/sandboxes/portable/reader.ts';
import { createSandbox, problem, useEngine } from '../../helpers/engine.ts';
import { linesOf, resealed } from '../../helpers/hostile-files.ts';
import { exportBytes, importBytes } from '../../helpers/portable.ts';

const engine = useEngine();

/** An upload that has begun and sends nothing more until `end` (its import holds a slot meanwhile). */
function heldUpload() {
  let push!: ReadableStreamDefaultController<Uint8Array>;
  const body = new ReadableStream<Uint8Array>({ start: (c) => void (push = c) });
  push.enqueue(new Uint8Array([0x1f, 0x8b]));
  const answer = importBytes(engine.url, body);
  return { answer, end: () => push.close() };
}

test('a third import while two are running is answered 429 with Retry-After, before a byte of it is read', async () => {
  const held = [heldUpload(), heldUpload()];
  // Each probe is a whole (if useless) file: while a slot is free it is refused at once as not a sandbox file.
  let busy: Awaited<ReturnType<typeof importBytes>>;
  do busy = await importBytes(engine.url, Buffer.from('not gzip'));
  while (busy.status === 422);
  problem(busy, 429, 'import_busy');
  assert.equal(busy.headers.get('retry-after'), '5');
  for (const h of held) h.end();
  for (const h of held) assert.equal((await h.answer).status, 422, 'each held upload was a truncated file');
  problem(await importBytes(engine.url, Buffer.from('not gzip')), 422, 'import_not_sandbox_file');
});

test('rows are handed on in batches of at most 1 MiB of lines, whatever their count', async () => {
  const sb = await createSandbox(engine.url, 'Batches');
  const lines = linesOf(await exportBytes(engine.url, sb));
  const at = lines.findIndex((l) => l.startsWith('{"table":"audit_log"'));
  const row = JSON.stringify({
    r: {
      id: 'aud_x',
      actor_id: 'stf_1',
      action: 'x',
      target_id: 't',
      details: { pad: 'p'.repeat(300_000) },
      created_at: '2026-01-01T00:00:00.000Z',
    },
  });
  const rows = Array.from({ length: 12 }, (_, i) => row.replace('aud_x', `aud_${i}`));
  const file = await resealed([...lines.slice(0, at + 1), ...rows, ...lines.slice(at + 1)]);
  const batches: number[] = [];
  for await (const record of readSandboxFile(Readable.from([file])))
    if (record.kind === 'rows' && record.table === 'audit_log') batches.push(record.rows.length);
  assert.deepEqual(batches.slice(0, 3), [4, 4, 4], 'four rows of 300 KB make a batch (not 500 rows)');
});
