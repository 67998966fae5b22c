// Writes the deterministic seed files in seed/. Run with `npm run seed:generate`;
// the output is committed, so every sandbox (and every reset) gets the same rows.
import { writeFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { baseProducts, editions, firstNames, lastNames, places, vendors } from './catalog-data.ts';
import { commerceSeed } from './commerce.ts';

const outDir = join(import.meta.dirname, '..', '..', 'seed');

/** mulberry32: a tiny PRNG, so the same seed always yields the same data. */
function prng(seed: number) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
const rand = prng(20261122);
const pick = <T>(list: readonly T[]): T => list[Math.floor(rand() * list.length)];
const int = (min: number, max: number) => min + Math.floor(rand() * (max - min + 1));
const pad = (n: number) => String(n).padStart(4, '0');
const asciiSlug = (s: string) =>
  s
    .toLocaleLowerCase('tr')
    .replace(/ç/g, 'c')
    .replace(/ğ/g, 'g')
    .replace(/ı/g, 'i')
    .replace(/ö/g, 'o')
    .replace(/ş/g, 's')
    .replace(/ü/g, 'u')
    .replace(/[^a-z0-9]+/g, '');

const day = 86_400_000;
const epoch = Date.parse('2026-01-05T09:00:00Z');
const iso = (ms: number) => new Date(ms).toISOString();

const vendorRows = vendors.map((v, i) => ({
  id: `ven_${pad(i + 1)}`,
  name: v.name,
  status: v.status,
  commissionBps: v.commissionBps,
  city: v.city,
  createdAt: iso(epoch - (30 - i) * day),
}));

const productRows: Record<string, unknown>[] = [];
const variantRows: {
  id: string;
  productId: string;
  sku: string;
  name: string;
  priceMinor: number;
  stock: number;
  createdAt: string;
  productName: string;
}[] = [];
let variantSeq = 0;
for (let i = 0; i < 100; i++) {
  const base = baseProducts[i % baseProducts.length];
  const edition = editions[Math.floor(i / baseProducts.length)];
  const id = `prd_${pad(i + 1)}`;
  const name = base.name + edition;
  const createdAt = iso(epoch + i * 3600_000);
  // A handful of drafts and archived products so every catalog screen has data.
  const status = i % 25 === 24 ? 'archived' : i % 20 === 19 ? 'draft' : 'published';
  productRows.push({
    id,
    name,
    category: base.category,
    status,
    description: `${name}. Türkiye'den özenle seçilmiş ${base.category.toLocaleLowerCase('tr')} ürünü.`,
    vendorId: i % 10 === 3 ? vendorRows[i % 2].id : null,
    createdAt,
    updatedAt: createdAt,
  });
  const editionFactor = edition ? 1.25 : 1;
  const values = base.options?.values ?? ['Standart'];
  values.forEach((value, k) => {
    variantSeq++;
    const priceMinor = Math.round((base.price * editionFactor * (1 + k * 0.1)) / 10) * 10;
    variantRows.push({
      id: `var_${pad(variantSeq)}`,
      productId: id,
      productName: name,
      sku: `SB-${asciiSlug(base.name).slice(0, 10).toUpperCase()}-${pad(i + 1)}-${k + 1}`,
      name: base.options ? `${base.options.name}: ${value}` : value,
      priceMinor,
      stock: int(0, 8) === 0 ? 0 : int(5, 400),
      createdAt,
    });
  });
}

const customerRows = Array.from({ length: 50 }, (_, i) => {
  const first = firstNames[i % firstNames.length];
  const last = lastNames[(i * 7) % lastNames.length];
  const place = pick(places);
  return {
    id: `cus_${pad(i + 1)}`,
    name: `${first} ${last}`,
    email: `${asciiSlug(first)}.${asciiSlug(last)}${i + 1}@example.com.tr`,
    phone: `+90 5${int(30, 59)} ${int(100, 999)} ${int(10, 99)} ${int(10, 99)}`,
    city: place.city,
    district: pick(place.districts),
    addressLine: `${pick(['Atatürk', 'Cumhuriyet', 'İstiklal', 'Gazi', 'Bağdat', 'Fevzi Çakmak'])} Cad. No: ${int(1, 180)}`,
    createdAt: iso(epoch - int(1, 300) * day),
  };
});

const orderable = variantRows.filter((v) => {
  const product = productRows.find((p) => p.id === v.productId)!;
  return product.status === 'published' && v.stock > 0;
});
const orderRows: Record<string, unknown>[] = [];
const itemRows: Record<string, unknown>[] = [];
const paymentRows: Record<string, unknown>[] = [];
const brands = [
  ['visa', '4242'],
  ['mastercard', '4444'],
  ['troy', '0019'],
  ['amex', '8431'],
] as const;
for (let i = 0; i < 200; i++) {
  const id = `ord_${pad(i + 1)}`;
  const customer = customerRows[(i * 13) % customerRows.length];
  const createdAtMs = epoch + i * 0.45 * day + int(0, 6) * 3600_000;
  const lines = int(1, 4);
  let total = 0;
  const used = new Set<string>();
  for (let position = 0; position < lines; position++) {
    let variant = pick(orderable);
    while (used.has(variant.id)) variant = pick(orderable);
    used.add(variant.id);
    const quantity = rand() < 0.75 ? 1 : int(2, 4);
    const lineTotal = variant.priceMinor * quantity;
    total += lineTotal;
    itemRows.push({
      orderId: id,
      position,
      variantId: variant.id,
      productId: variant.productId,
      name: `${variant.productName} (${variant.name})`,
      quantity,
      unitPriceMinor: variant.priceMinor,
      lineTotalMinor: lineTotal,
    });
  }
  const roll = i % 20;
  const status = roll === 7 ? 'cancelled' : roll < 4 ? 'placed' : 'paid';
  const createdAt = iso(createdAtMs);
  orderRows.push({
    id,
    customerId: customer.id,
    status,
    totalMinor: total,
    currency: 'TRY',
    city: customer.city,
    district: customer.district,
    createdAt,
    updatedAt: createdAt,
    cancelledAt: status === 'cancelled' ? iso(createdAtMs + 2 * 3600_000) : null,
  });
  if (status === 'paid') {
    const [brand, last4] = brands[i % brands.length];
    paymentRows.push({
      id: `pay_${pad(paymentRows.length + 1)}`,
      orderId: id,
      status: 'captured',
      amountMinor: total,
      refundedMinor: 0,
      currency: 'TRY',
      cardBrand: brand,
      cardLast4: last4,
      declineCode: null,
      createdAt: iso(createdAtMs + 60_000),
      updatedAt: iso(createdAtMs + 60_000),
    });
  }
}

mkdirSync(outDir, { recursive: true });
const write = (name: string, rows: unknown[]) =>
  writeFileSync(join(outDir, `${name}.json`), `[\n${rows.map((row) => JSON.stringify(row)).join(',\n')}\n]\n`);
const variants = variantRows.map(({ productName: _unused, ...row }) => row);
// A second PRNG: the commerce tables never shift the values above.
const commerce = commerceSeed(
  {
    vendors: vendorRows,
    products: productRows,
    variants,
    customers: customerRows,
    orders: orderRows,
    items: itemRows,
    payments: paymentRows,
  },
  prng(20261123),
);
write('variants', variants);
write('orders', orderRows);
write('order_items', itemRows);
for (const [table, rows] of Object.entries(commerce)) write(table, rows);
console.log(
  `seed: ${Object.entries(commerce)
    .map(([t, r]) => `${r.length} ${t}`)
    .join(
      ', ',
    )}; ${productRows.length} products, ${variantRows.length} variants, ${customerRows.length} customers, ${orderRows.length} orders, ${paymentRows.length} payments, ${vendorRows.length} vendors`,
);
