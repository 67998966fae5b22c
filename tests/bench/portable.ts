// Issue 23's figures: export and import time, file size and the engine's peak RSS, for a seeded
// sandbox and for one with 50,000 deliveries (each with its attempt); issue 28's: the hostile-file
// corpus (tests/helpers/hostile-files.ts) against an engine run with --unhandled-rejections=strict. The engine is a
// child process:
// its peak RSS (VmHWM) is reset before each operation (/proc/<pid>/clear_refs), so each figure is the
// operation's own peak, beside the RSS it started from.
import { createHash } from 'node:crypto';
import { createWriteStream, mkdtempSync, openAsBlob, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { finished } from 'node:stream/promises';
import { createGzip, gunzipSync } from 'node:zlib';
import { jsonClient } from './load.ts';
import { startCeiling } from './spawn.ts';
import { type BenchRow, sectionRows } from './table.ts';
import { hostileCorpus } from '../helpers/hostile-files.ts';
import { Receiver } from '../helpers/receiver.ts';

const row = sectionRows('portable');
const scratch = mkdtempSync(join(tmpdir(), 'sandbay-bench-portable-'));
const bigDeliveries = 50_000;

const status = (pid: number, field: string) =>
  Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0) / 1024;

/** Runs `work` and reports its time and the engine's peak RSS during it (MB), and the RSS it began at. */
async function measured<T>(
  pid: number,
  work: () => Promise<T>,
): Promise<{ result: T; ms: number; peakMb: number; startMb: number }> {
  writeFileSync(`/proc/${pid}/clear_refs`, '5'); // resets VmHWM to the current RSS
  const startMb = status(pid, 'VmRSS');
  const started = performance.now();
  const result = await work();
  return { result, ms: performance.now() - started, peakMb: status(pid, 'VmHWM'), startMb };
}

async function exportTo(url: string, token: string, file: string): Promise<number> {
  const res = await fetch(`${url}/api/v1/sandbox/export?includeSecrets=true`, {
    headers: { authorization: `Bearer ${token}` },
  });
  if (!res.ok) throw new Error(`bench: export failed ${res.status} ${await res.text()}`);
  writeFileSync(file, Buffer.from(await res.arrayBuffer()));
  return statSync(file).size;
}

async function importFrom(url: string, file: string): Promise<any> {
  const res = await fetch(`${url}/api/v1/sandboxes/import`, {
    method: 'POST',
    body: await openAsBlob(file),
    headers: { 'content-type': 'application/gzip' },
  });
  const body = await res.json();
  if (res.status !== 201) throw new Error(`bench: import failed ${res.status} ${JSON.stringify(body)}`);
  return body;
}

/**
 * A sandbox file with `target` deliveries, made from a real export by repeating its events, deliveries and
 * attempts under new ids (every other table as it is), sealed with a correct end line.
 */
async function multiplied(source: string, out: string, target: number): Promise<void> {
  const lines = gunzipSync(readFileSync(source)).toString('utf8').split('\n').slice(0, -2);
  const deliveries = lines.filter((l) => l.startsWith('{"r":{"id":"dlv_')).length;
  const copies = Math.ceil(target / deliveries);
  const gzip = createGzip({ level: 6 });
  gzip.pipe(createWriteStream(out));
  const hash = createHash('sha256');
  const rows: Record<string, number> = {};
  let count = 0;
  const write = async (text: string) => {
    hash.update(text);
    count += text.split('\n').length - 1;
    if (!gzip.write(text)) await new Promise((r) => gzip.once('drain', r));
  };
  let table = '';
  let section: string[] = [];
  const flush = async () => {
    const repeat = ['events', 'deliveries', 'attempts'].includes(table) ? copies : 1;
    for (let k = 0; k < repeat; k++) {
      let text = '';
      for (const l of section) text += `${repeat === 1 ? l : l.replace(/"((?:evt|dlv)_\w+)"/g, `"$1x${k}"`)}\n`;
      if (section.length) await write(text);
    }
    rows[table] = section.length * repeat;
    section = [];
  };
  await write(`${lines[0]}\n`);
  for (const line of lines.slice(1)) {
    if (line.startsWith('{"r"')) section.push(line);
    else {
      if (table) await flush();
      table = JSON.parse(line).table;
      await write(`${line}\n`);
    }
  }
  await flush();
  gzip.end(`${JSON.stringify({ end: { rows, lines: count, sha256: hash.digest('hex') } })}\n`);
  await finished(gzip);
}

/**
 * Every file of the hostile corpus, one at a time: how many were refused or imported, the worst RSS and time, crashes.
 */
async function hostile(receiver: Receiver): Promise<BenchRow[]> {
  const engine = await startCeiling('sandbay-roomy', ['--unhandled-rejections=strict']);
  const [url] = engine.url.split(' ');
  let crashed = 0;
  try {
    const anon = jsonClient(url);
    const created = (await anon.request('POST', '/api/v1/sandboxes')).body;
    await anon.close();
    const token = created.credentials.accessToken;
    const api = jsonClient(url, { authorization: `Bearer ${token}` });
    await api.request('POST', '/api/v1/webhooks/endpoints', { url: receiver.url, topics: ['order.*'] });
    // A catcher that caught a request: the corpus's rows of 8 MiB are caught requests.
    await api.request('PUT', '/api/v1/catchers/ok', { mode: 'status', status: 200 });
    await fetch(`${url}/catch/${created.sandbox.id}/ok`, { method: 'POST', body: '{}' });
    await api.request('POST', '/api/v1/orders', {
      customerId: 'cus_0004',
      items: [{ variantId: 'var_0002', quantity: 1 }],
      shippingAddress: { city: 'İzmir', district: 'Bornova' },
    });
    await api.close();
    const source = join(scratch, 'hostile-source.sandbay');
    await exportTo(url, token, source);
    const counts = { tried: 0, refused: 0, imported: 0, other: 0 };
    let worstRss = { mb: 0, name: '' };
    let worstTime = { ms: 0, name: '' };
    for (const file of hostileCorpus(readFileSync(source), { manyRows: 200_000 })) {
      const body = await file.body();
      const m = await measured(engine.pid, async () => {
        const res = await fetch(`${url}/api/v1/sandboxes/import`, {
          method: 'POST',
          body,
          headers: { 'content-type': 'application/gzip' },
        });
        await res.arrayBuffer();
        return res.status;
      });
      counts.tried++;
      if (m.result === 201) counts.imported++;
      else if (m.result === 413 || m.result === 422) counts.refused++;
      else counts.other++;
      if (m.peakMb - m.startMb > worstRss.mb) worstRss = { mb: m.peakMb - m.startMb, name: file.name };
      if (m.ms > worstTime.ms) worstTime = { ms: m.ms, name: file.name };
      try {
        process.kill(engine.pid, 0);
      } catch {
        crashed++;
        break;
      }
    }
    return [
      row('hostile files: tried', counts.tried, 'files'),
      row('hostile files: refused (422/413)', counts.refused, 'files'),
      row('hostile files: imported', counts.imported, 'files'),
      row('hostile files: other answers (5xx…)', counts.other, 'files', '0', counts.other === 0),
      row('hostile files: worst RSS rise', worstRss.mb, 'MB', `< 100 MB (${worstRss.name})`, worstRss.mb < 100),
      row('hostile files: worst import time', worstTime.ms / 1000, 's', worstTime.name),
      row('hostile files: engine crashes', crashed, 'crashes', '0', crashed === 0),
    ];
  } finally {
    if (!crashed) await engine.stop();
  }
}

export async function run(): Promise<BenchRow[]> {
  const receiver = await new Receiver().start();
  const engine = await startCeiling('sandbay-roomy');
  const [url] = engine.url.split(' ');
  const out: BenchRow[] = [];
  try {
    const anon = jsonClient(url);
    const created = (await anon.request('POST', '/api/v1/sandboxes')).body;
    await anon.close();
    const token = created.credentials.accessToken;
    const seeded = join(scratch, 'seeded.sandbay');
    const exp = await measured(engine.pid, () => exportTo(url, token, seeded));
    const imp = await measured(engine.pid, () => importFrom(url, seeded));
    out.push(
      row('seeded sandbox: export', exp.ms, 'ms'),
      row('seeded sandbox: file size', exp.result / 1024, 'KiB'),
      row('seeded sandbox: export peak RSS', exp.peakMb, 'MB', `from ${exp.startMb.toFixed(0)} MB`),
      row('seeded sandbox: import', imp.ms, 'ms'),
      row('seeded sandbox: import peak RSS', imp.peakMb, 'MB', `from ${imp.startMb.toFixed(0)} MB`),
    );

    // A sandbox with real deliveries and attempts, multiplied to 50,000 deliveries.
    const api = jsonClient(url, { authorization: `Bearer ${token}` });
    const endpoint = await api.request('POST', '/api/v1/webhooks/endpoints', {
      url: receiver.url,
      topics: ['order.*'],
    });
    if (endpoint.status !== 201) throw new Error(`bench: endpoint failed ${JSON.stringify(endpoint.body)}`);
    await api.request('PATCH', '/api/v1/variants/var_0001', { stock: 1000 });
    for (let i = 0; i < 50; i++) {
      const placed = await api.request('POST', '/api/v1/orders', {
        customerId: 'cus_0004',
        items: [{ variantId: 'var_0001', quantity: 1 }],
        shippingAddress: { city: 'İzmir', district: 'Bornova' },
      });
      if (placed.status !== 201) throw new Error(`bench: order failed ${JSON.stringify(placed.body)}`);
    }
    await receiver.waitFor(50, 60_000);
    await new Promise((r) => setTimeout(r, 500)); // the last attempts' records
    await api.close();
    const small = join(scratch, 'small.sandbay');
    await exportTo(url, token, small);
    const big = join(scratch, 'big.sandbay');
    await multiplied(small, big, bigDeliveries);

    const first = await measured(engine.pid, () => importFrom(url, big));
    const bigToken = first.result.credentials.accessToken;
    const again = join(scratch, 'big-again.sandbay');
    const bigExport = await measured(engine.pid, () => exportTo(url, bigToken, again));
    const second = await measured(engine.pid, () => importFrom(url, again));
    const delivered = second.result.report.rows.deliveries;
    out.push(
      row(`${delivered.toLocaleString('en')} deliveries: export`, bigExport.ms / 1000, 's'),
      row(`${delivered.toLocaleString('en')} deliveries: file size`, bigExport.result / 2 ** 20, 'MiB'),
      row(
        `${delivered.toLocaleString('en')} deliveries: export peak RSS`,
        bigExport.peakMb,
        'MB',
        `from ${bigExport.startMb.toFixed(0)} MB`,
      ),
      row(`${delivered.toLocaleString('en')} deliveries: import`, second.ms / 1000, 's'),
      row(
        `${delivered.toLocaleString('en')} deliveries: import peak RSS`,
        second.peakMb,
        'MB',
        `from ${second.startMb.toFixed(0)} MB`,
      ),
    );
    out.push(...(await hostile(receiver)));
  } finally {
    await engine.stop();
    await receiver.close();
    rmSync(scratch, { recursive: true, force: true });
  }
  return out;
}
