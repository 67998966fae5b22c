import Koa from 'koa';
import type { AddressInfo } from 'node:net';
import { openSandboxDatabase } from '../../../src/server/database.ts';
const db = await openSandboxDatabase({ memory: true });
await db.exec(`alter table orders add column items_doc jsonb;
update orders o set items_doc = (select json_agg(json_build_object('variantId', i.variant_id, 'productId', i.product_id, 'name', i.name,
        'quantity', i.quantity, 'unitPrice', i.unit_price_minor, 'lineTotal', i.line_total_minor) order by i.position)
       from order_items i where i.tenant_id = o.tenant_id and i.order_id = o.id)`);
const mode = process.env.MODE;
app();
function app() {
  const app = new Koa();
  app.use(async (ctx) => {
    if (mode === 'doc') {
      const [r] = await db.query<{ doc: string }>('select items_doc::text as doc from orders where tenant_id = $1 and id = $2', ['__seed__', 'ord_0042']);
      ctx.type = 'application/json'; ctx.body = r.doc; return;
    }
    const [row] = await db.query(mode === 'text'
      ? 'select id, status, customer_id, total_minor, currency, city, district, created_at, items_doc::text as items from orders where tenant_id = $1 and id = $2'
      : 'select id, status, customer_id, total_minor, currency, city, district, created_at, items_doc as items from orders where tenant_id = $1 and id = $2', ['__seed__', 'ord_0042']);
    ctx.body = row;
  });
  const server = app.listen(0, '127.0.0.1', () => process.stdout.write(`ready http://127.0.0.1:${(server.address() as AddressInfo).port}\n`));
}
process.on('SIGTERM', async () => { await db.close(); process.exit(0); });
