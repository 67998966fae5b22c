-- B2B quotes: negotiated prices that can become an order.

create table quotes (
  tenant_id text not null references tenants on delete cascade,
  id text not null,
  customer_id text not null,
  status text not null check (status in ('draft', 'sent', 'accepted', 'rejected', 'converted', 'expired')),
  total_minor bigint not null check (total_minor >= 0),
  currency text not null,
  city text not null,
  district text not null,
  note text,
  valid_days int not null check (valid_days between 1 and 90),
  sent_at timestamptz,
  expires_at timestamptz,
  decided_at timestamptz,
  decision_reason text,
  order_id text,
  created_at timestamptz not null,
  updated_at timestamptz not null,
  primary key (tenant_id, id)
);
create index quotes_recent on quotes (tenant_id, created_at desc, id desc);

create table quote_items (
  tenant_id text not null references tenants on delete cascade,
  quote_id text not null,
  position int not null,
  variant_id text not null,
  product_id text not null,
  name text not null,
  quantity int not null check (quantity between 1 and 999),
  unit_price_minor bigint not null check (unit_price_minor >= 0),
  line_total_minor bigint not null check (line_total_minor >= 0),
  primary key (tenant_id, quote_id, position)
);
