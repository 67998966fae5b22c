// Issue 12's figure: the full receiver-check battery against a local receiver that answers at
// once, end to end through the API (POST the check, poll until it has finished), and the same
// through the `sandbay check` command, process start-up included.
import { startTestReceiver } from '../helpers/check-receivers.ts';
import { jsonClient } from './load.ts';
import { runScript, startSandbay } from './spawn.ts';
import { percentile, type BenchRow } from './table.ts';

const section = 'check';
const runs = 7;
const secret = 'whsec_benchCheckSecret0123456789abcd';

export async function run(): Promise<BenchRow[]> {
  const sandbay = await startSandbay();
  const receiver = await startTestReceiver(secret);
  try {
    const anon = jsonClient(sandbay.url);
    const created = await anon.request('POST', '/api/v1/sandboxes');
    await anon.close();
    const token = created.body.credentials.accessToken as string;
    const api = jsonClient(sandbay.url, { authorization: `Bearer ${token}` });
    const endToEnd: number[] = [];
    const engineSide: number[] = [];
    for (let i = 0; i < runs + 1; i++) {
      const started = performance.now();
      const start = await api.request('POST', '/api/v1/webhooks/checks', { url: receiver.url, secret });
      let check = start.body;
      while (check.status === 'running') {
        await new Promise((r) => setTimeout(r, 5));
        check = (await api.request('GET', `/api/v1/webhooks/checks/${start.body.id}`)).body;
      }
      if (check.report.failed > 0) throw new Error(`bench: the correct receiver failed ${JSON.stringify(check.report.cases.filter((c: any) => !c.ok))}`);
      if (i === 0) continue; // warm-up: first connections, first statements
      endToEnd.push(performance.now() - started);
      engineSide.push(check.report.durationMs);
    }
    await api.close();
    const cliStarted = performance.now();
    await runScript('bin/sandbay.mjs', ['check', receiver.url, '--secret', secret, '--url', sandbay.url, '--token', token, '--json']);
    const cli = performance.now() - cliStarted;
    const p50 = percentile(endToEnd, 50);
    return [
      { section, metric: 'full battery (15 cases, 18 requests), local receiver, API end to end p50', value: p50 / 1000, unit: 's', target: '< 1 s', ok: p50 < 1000 },
      { section, metric: 'full battery, API end to end p90 / engine-side p50', value: percentile(endToEnd, 90) / 1000, unit: `s / ${(percentile(engineSide, 50) / 1000).toFixed(2)} s` },
      { section, metric: '`sandbay check … --json`, one process, start-up included', value: cli / 1000, unit: 's' },
    ];
  } finally {
    await receiver.close();
    await sandbay.stop();
  }
}
