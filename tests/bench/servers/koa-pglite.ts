// Ceiling for one request = one PGlite lookup: Koa + a primary-key query on the same template data.
import Koa from 'koa';
import type { AddressInfo } from 'node:net';
import { openSandboxDatabase } from '../../../src/server/database.ts';

const db = await openSandboxDatabase({ memory: true });
const app = new Koa();
app.use(async (ctx) => {
  const [row] = await db.query('select id, status, total_minor from orders where tenant_id = $1 and id = $2', [
    '__seed__',
    'ord_0001',
  ]);
  ctx.body = row;
});
const server = app.listen(0, '127.0.0.1', () => {
  process.stdout.write(`ready http://127.0.0.1:${(server.address() as AddressInfo).port}\n`);
});
process.on('SIGTERM', async () => {
  await db.close();
  process.exit(0);
});
