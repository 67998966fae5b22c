-- Tenants (sandboxes), OAuth, idempotency and the core commerce tables.
-- Every tenant-owned table is keyed by (tenant_id, id) and cascades from tenants,
-- so deleting a sandbox removes everything in it.

create table meta (
  key text primary key,
  value text not null
);

create table tenants (
  id text primary key,
  name text not null,
  is_template boolean not null default false,
  webhook_test_secret text not null,
  clock_offset_ms bigint not null default 0,
  created_at timestamptz not null default now()
);

create table oauth_clients (
  client_id text primary key,
  tenant_id text not null references tenants on delete cascade,
  -- Sandbox client secrets are test credentials the dashboard shows again (like
  -- Stripe's test keys), so they are kept; tokens are only ever stored hashed.
  client_secret text not null,
  redirect_uris text[] not null default '{}',
  created_at timestamptz not null default now()
);
create index oauth_clients_tenant on oauth_clients (tenant_id);

create table oauth_tokens (
  hash text primary key,
  tenant_id text not null references tenants on delete cascade,
  client_id text not null,
  kind text not null check (kind in ('access', 'refresh')),
  scope text not null,
  family_id text not null,
  expires_at timestamptz not null,
  used_at timestamptz,
  revoked_at timestamptz,
  created_at timestamptz not null default now()
);
create index oauth_tokens_tenant on oauth_tokens (tenant_id);
create index oauth_tokens_family on oauth_tokens (family_id);

create table oauth_codes (
  hash text primary key,
  tenant_id text not null references tenants on delete cascade,
  client_id text not null,
  redirect_uri text not null,
  code_challenge text not null,
  scope text not null,
  family_id text not null,
  expires_at timestamptz not null,
  used_at timestamptz
);

create table idempotency_keys (
  tenant_id text not null references tenants on delete cascade,
  method text not null,
  path text not null,
  key text not null,
  body_hash text not null,
  status int not null,
  response text not null,
  created_at timestamptz not null default now(),
  primary key (tenant_id, method, path, key)
);

create table vendors (
  tenant_id text not null references tenants on delete cascade,
  id text not null,
  name text not null,
  status text not null,
  commission_bps int not null,
  city text,
  created_at timestamptz not null,
  updated_at timestamptz,
  primary key (tenant_id, id)
);

create table products (
  tenant_id text not null references tenants on delete cascade,
  id text not null,
  name text not null,
  description text,
  category text not null,
  status text not null,
  vendor_id text,
  created_at timestamptz not null,
  updated_at timestamptz not null,
  primary key (tenant_id, id)
);

create table variants (
  tenant_id text not null references tenants on delete cascade,
  id text not null,
  product_id text not null,
  sku text not null,
  name text not null,
  price_minor bigint not null check (price_minor >= 0),
  stock int not null check (stock >= 0),
  created_at timestamptz not null,
  primary key (tenant_id, id)
);
create index variants_product on variants (tenant_id, product_id);

create table customers (
  tenant_id text not null references tenants on delete cascade,
  id text not null,
  name text not null,
  email text not null,
  phone text,
  city text not null,
  district text not null,
  address_line text,
  created_at timestamptz not null,
  primary key (tenant_id, id)
);

create table orders (
  tenant_id text not null references tenants on delete cascade,
  id text not null,
  customer_id text not null,
  status text not null,
  total_minor bigint not null check (total_minor >= 0),
  currency text not null,
  city text not null,
  district text not null,
  created_at timestamptz not null,
  updated_at timestamptz not null,
  cancelled_at timestamptz,
  primary key (tenant_id, id)
);
create index orders_recent on orders (tenant_id, created_at desc, id desc);

create table order_items (
  tenant_id text not null references tenants on delete cascade,
  order_id text not null,
  position int not null,
  variant_id text not null,
  product_id text not null,
  name text not null,
  quantity int not null check (quantity between 1 and 999),
  unit_price_minor bigint not null,
  line_total_minor bigint not null,
  primary key (tenant_id, order_id, position)
);

create table payments (
  tenant_id text not null references tenants on delete cascade,
  id text not null,
  order_id text not null,
  status text not null,
  amount_minor bigint not null check (amount_minor >= 0),
  refunded_minor bigint not null default 0 check (refunded_minor >= 0),
  currency text not null,
  card_brand text,
  card_last4 text,
  decline_code text,
  created_at timestamptz not null,
  updated_at timestamptz not null,
  primary key (tenant_id, id)
);
create index payments_order on payments (tenant_id, order_id);
