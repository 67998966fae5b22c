import { parseArgs } from 'node:util';
import { relaunchWithEngineV8Flags } from '../../bin/engine-v8-flags.mjs';
import { fullSoak, runSoak } from './soak.ts';

// The engine runs in this process: it starts with the V8 flags `sandbay serve` gets.
relaunchWithEngineV8Flags();

// npm run soak -- --minutes N: one engine under steady load; exits 1 if a delivery was lost or RSS passed its bound.
const { values } = parseArgs({ options: { minutes: { type: 'string', default: '10' } } });
const minutes = Number(values.minutes);
if (!(minutes > 0)) {
  console.error(`--minutes must be a positive number, not ${values.minutes}`);
  process.exit(2);
}
console.log(
  `soak: ${minutes} min, ${fullSoak.ordersPerSecond} orders/s, ${fullSoak.catcherHitsPerSecond} catcher hits/s, ${fullSoak.sseClients} SSE clients (${fullSoak.nonReaders} never read)`,
);
const report = await runSoak({ ...fullSoak, durationMs: minutes * 60_000, print: (line) => console.log(line) });
console.log(report.ok ? 'soak: OK' : 'soak: FAILED');
process.exit(report.ok ? 0 : 1);
