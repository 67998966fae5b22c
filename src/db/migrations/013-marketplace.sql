-- Marketplace: vendor onboarding, offers on variants, the buybox and vendor payouts.

alter table vendors
  add column email text,
  add column tax_number text,
  add column iban text,
  -- 0–100, the buybox's last tie-breaker
  add column standing int not null default 50 check (standing between 0 and 100),
  add column status_reason text,
  add column decided_at timestamptz;
create index vendors_recent on vendors (tenant_id, created_at desc, id desc);

create table vendor_offers (
  tenant_id text not null references tenants on delete cascade,
  id text not null,
  vendor_id text not null,
  variant_id text not null,
  price_minor bigint not null check (price_minor > 0),
  shipping_minor bigint not null check (shipping_minor >= 0),
  stock int not null check (stock >= 0),
  created_at timestamptz not null,
  updated_at timestamptz not null,
  primary key (tenant_id, id),
  unique (tenant_id, vendor_id, variant_id)
);
create index vendor_offers_variant on vendor_offers (tenant_id, variant_id);

-- The current winner per variant; a variant without eligible offers has no row.
create table buybox_winners (
  tenant_id text not null references tenants on delete cascade,
  variant_id text not null,
  offer_id text not null,
  vendor_id text not null,
  price_minor bigint not null,
  shipping_minor bigint not null,
  stock int not null,
  updated_at timestamptz not null,
  primary key (tenant_id, variant_id)
);

create table payouts (
  tenant_id text not null references tenants on delete cascade,
  id text not null,
  vendor_id text not null,
  period_start date not null,
  period_end date not null,
  status text not null check (status in ('calculated', 'retry_scheduled', 'paid', 'failed')),
  gross_minor bigint not null check (gross_minor >= 0),
  commission_minor bigint not null check (commission_minor >= 0),
  refunds_minor bigint not null check (refunds_minor >= 0),
  amount_minor bigint not null check (amount_minor >= 0),
  currency text not null,
  order_count int not null,
  attempt_count int not null default 0,
  next_attempt_at timestamptz,
  last_failure_code text,
  paid_at timestamptz,
  created_at timestamptz not null,
  updated_at timestamptz not null,
  primary key (tenant_id, id),
  check (period_start <= period_end)
);
create index payouts_recent on payouts (tenant_id, created_at desc, id desc);

create table payout_attempts (
  tenant_id text not null references tenants on delete cascade,
  payout_id text not null,
  number int not null,
  iban_last4 text not null,
  outcome text not null check (outcome in ('paid', 'failed')),
  failure_code text,
  attempted_at timestamptz not null,
  primary key (tenant_id, payout_id, number)
);
