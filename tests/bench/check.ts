// The full receiver-check battery against a local receiver that answers at once, end to end
// through the API (POST the check, poll until it has finished), and the same through the
// `sandbay check` command, process start-up included; and against a receiver that refuses
// everything, where valid's probes (the secret's readings, seven serialiser forms) run too.
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
  const refusing = await startTestReceiver(secret, 'rejects-everything');
  try {
    const anon = jsonClient(sandbay.url);
    const created = await anon.request('POST', '/api/v1/sandboxes');
    await anon.close();
    const token = created.body.credentials.accessToken as string;
    const api = jsonClient(sandbay.url, { authorization: `Bearer ${token}` });
    const battery = async (url: string, failed: number) => {
      const endToEnd: number[] = [];
      const engineSide: number[] = [];
      let requests = 0;
      for (let i = 0; i < runs + 1; i++) {
        const started = performance.now();
        const start = await api.request('POST', '/api/v1/webhooks/checks', { url, secret });
        let check = start.body;
        while (check.status === 'running') {
          await new Promise((r) => setTimeout(r, 5));
          check = (await api.request('GET', `/api/v1/webhooks/checks/${start.body.id}`)).body;
        }
        if (check.report.failed !== failed)
          throw new Error(
            `bench: expected ${failed} failed, got ${JSON.stringify(check.report.cases.filter((c: any) => c.status === 'failed'))}`,
          );
        if (i === 0) continue; // warm-up: first connections, first statements
        endToEnd.push(performance.now() - started);
        engineSide.push(check.report.durationMs);
        requests = check.report.cases.reduce((n: number, c: any) => n + c.deliveryIds.length, 0);
      }
      return { endToEnd, engineSide, requests };
    };
    const { endToEnd, engineSide } = await battery(receiver.url, 0);
    const refused = await battery(refusing.url, 1);
    await api.close();
    const cliStarted = performance.now();
    await runScript('bin/sandbay.mjs', [
      'check',
      receiver.url,
      '--secret',
      secret,
      '--url',
      sandbay.url,
      '--token',
      token,
      '--json',
    ]);
    const cli = performance.now() - cliStarted;
    const p50 = percentile(endToEnd, 50);
    return [
      {
        section,
        metric: 'full battery (15 cases, 18 requests), local receiver, API end to end p50',
        value: p50 / 1000,
        unit: 's',
        target: '< 1 s',
        ok: p50 < 1000,
      },
      {
        section,
        metric: 'full battery, API end to end p90 / engine-side p50',
        value: percentile(endToEnd, 90) / 1000,
        unit: `s / ${(percentile(engineSide, 50) / 1000).toFixed(2)} s`,
      },
      { section, metric: '`sandbay check … --json`, one process, start-up included', value: cli / 1000, unit: 's' },
      {
        section,
        metric: `a receiver that refuses everything: valid probed, ${refused.requests} deliveries, API end to end p50`,
        value: percentile(refused.endToEnd, 50) / 1000,
        unit: 's',
        target: '< 1 s',
        ok: percentile(refused.endToEnd, 50) < 1000,
      },
    ];
  } finally {
    await receiver.close();
    await refusing.close();
    await sandbay.stop();
  }
}
