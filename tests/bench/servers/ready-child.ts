// Measures startSandbox() in a fresh process: `node --import tsx ready-child.ts memory|<dataDir>`.
import { startSandbox } from '../../../src/server/start.ts';

const target = process.argv[2];
const started = performance.now();
const running = await startSandbox({
  port: 0,
  logRequests: false,
  ...(target === 'memory' ? { memory: true } : { dataDir: target }),
});
const readyMs = performance.now() - started;
const rssMb = process.memoryUsage().rss / 1024 / 1024;
await running.close();
process.stdout.write(`${JSON.stringify({ readyMs, rssMb })}\n`);
