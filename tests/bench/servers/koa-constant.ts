// Ceiling for the HTTP layer: bare Koa answering a constant JSON body.
import Koa from 'koa';
import type { AddressInfo } from 'node:net';

const app = new Koa();
app.use((ctx) => {
  ctx.body = { ok: true };
});
const server = app.listen(0, '127.0.0.1', () => {
  process.stdout.write(`ready http://127.0.0.1:${(server.address() as AddressInfo).port}\n`);
});
