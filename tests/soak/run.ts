import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { packageRoot } from '../../src/shared/node/package-root.ts';
import { fullSoak, runSoak } from './soak.ts';

// The engine runs in this process: it gets the V8 flags `sandbay serve` gets (bin/sandbay.mjs), which V8 reads
// only at start-up, so this process replaces itself with one started with them.
const manifest = JSON.parse(readFileSync(join(packageRoot(), 'package.json'), 'utf8'));
const missing = (manifest.sandbay.engineV8Flags as string[]).filter((flag) => !process.execArgv.includes(flag));
if (missing.length > 0)
  process.execve!(process.execPath, [process.execPath, ...missing, ...process.execArgv, ...process.argv.slice(1)]);

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
