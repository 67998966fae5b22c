-- Catalog lifecycle, B2B companies with buyer/approver roles, and multi-level order approvals.

alter table products
  add column published_at timestamptz,
  add column archived_at timestamptz;
create index products_recent on products (tenant_id, created_at desc, id desc);
create unique index variants_sku on variants (tenant_id, sku);

create table companies (
  tenant_id text not null references tenants on delete cascade,
  id text not null,
  name text not null,
  tax_number text not null,
  -- orders of a buyer above this total wait for approval
  approval_threshold_minor bigint not null check (approval_threshold_minor >= 0),
  -- approval levels in order, e.g. {manager,finance}
  approval_levels text[] not null,
  approval_ttl_hours int not null check (approval_ttl_hours > 0),
  created_at timestamptz not null,
  primary key (tenant_id, id)
);

alter table customers
  add column company_id text,
  add column company_role text check (company_role in ('buyer', 'approver')),
  add column approval_level text;
create index customers_recent on customers (tenant_id, created_at desc, id desc);

create table approval_requests (
  tenant_id text not null references tenants on delete cascade,
  id text not null,
  order_id text not null,
  company_id text not null,
  buyer_id text not null,
  status text not null check (status in ('pending', 'approved', 'rejected', 'expired', 'cancelled')),
  levels text[] not null,
  -- index into levels of the level whose decision is awaited
  level_index int not null default 0,
  amount_minor bigint not null check (amount_minor >= 0),
  currency text not null,
  threshold_minor bigint not null,
  expires_at timestamptz,
  decided_at timestamptz,
  created_at timestamptz not null,
  updated_at timestamptz not null,
  primary key (tenant_id, id)
);
create index approval_requests_recent on approval_requests (tenant_id, created_at desc, id desc);
create index approval_requests_order on approval_requests (tenant_id, order_id);

create table approval_decisions (
  tenant_id text not null references tenants on delete cascade,
  request_id text not null,
  position int not null,
  level text not null,
  approver_id text,
  decision text not null check (decision in ('approved', 'rejected', 'expired')),
  note text,
  decided_at timestamptz not null,
  primary key (tenant_id, request_id, position)
);
