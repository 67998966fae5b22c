// The engine for the portable bench: as `sandbay serve --memory`, but keeping 100,000 deliveries per
// sandbox (the default prunes past 10,000), so a 50,000-delivery sandbox stays whole.
import { startSandbox } from '../../../src/server/start.ts';
import { silentLogger } from '../../../src/server/log.ts';

const engine = await startSandbox({
  memory: true,
  port: 0,
  logRequests: false,
  logger: silentLogger,
  maxDeliveriesPerSandbox: 100_000,
});
process.stdout.write(`ready ${engine.url} ${engine.adminKey}\n`);
process.on('SIGTERM', () => void engine.close().then(() => process.exit(0)));
