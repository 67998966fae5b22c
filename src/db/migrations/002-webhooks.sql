-- Webhook endpoints, the event outbox, deliveries and their attempts.
-- Times in these tables are sandbox-clock times (SPEC §5.5) unless named real_*.

create table webhook_endpoints (
  tenant_id text not null references tenants on delete cascade,
  id text not null,
  url text not null,
  topics text[] not null,
  description text,
  enabled boolean not null default true,
  allow_insecure_tls boolean not null default false,
  created_at timestamptz not null,
  updated_at timestamptz not null,
  primary key (tenant_id, id)
);

-- One row per secret; after a rotation the old one keeps signing until expires_at.
create table webhook_secrets (
  tenant_id text not null references tenants on delete cascade,
  endpoint_id text not null,
  secret text not null,
  created_at timestamptz not null,
  expires_at timestamptz,
  primary key (tenant_id, endpoint_id, secret)
);

create table events (
  tenant_id text not null references tenants on delete cascade,
  id text not null,
  topic text not null,
  occurred_at timestamptz not null,
  data jsonb not null,
  test boolean not null default false,
  seq bigserial,
  primary key (tenant_id, id)
);
create index events_recent on events (tenant_id, seq desc);

create table deliveries (
  tenant_id text not null references tenants on delete cascade,
  id text not null,
  event_id text not null,
  -- null for a test webhook sent to a bare URL
  endpoint_id text,
  target_url text,
  topic text not null,
  status text not null check (status in ('pending', 'succeeded', 'dead')),
  -- the envelope bytes, stored once and sent identically on every attempt
  body text not null,
  attempt_count int not null default 0,
  -- attempts used of the five-slot retry cycle (replays do not use one)
  cycle_attempts int not null default 0,
  next_attempt_at timestamptz,
  last_status int,
  last_error text,
  created_at timestamptz not null,
  updated_at timestamptz not null,
  seq bigserial,
  primary key (tenant_id, id)
-- Attempts update status and counters in place; room on each page and no index on those
-- columns keep the updates HOT (no index writes), which is most of a delivery's cost.
) with (fillfactor = 70);
create index deliveries_recent on deliveries (tenant_id, seq desc);
create index deliveries_event on deliveries (tenant_id, event_id);

create table attempts (
  tenant_id text not null references tenants on delete cascade,
  delivery_id text not null,
  number int not null,
  trigger text not null check (trigger in ('initial', 'retry', 'replay', 'manual')),
  url text not null,
  started_at timestamptz not null,
  duration_ms int not null,
  signature_header text not null,
  response_status int,
  response_headers jsonb not null default '{}',
  response_body text not null default '',
  error text,
  primary key (tenant_id, delivery_id, number)
);
