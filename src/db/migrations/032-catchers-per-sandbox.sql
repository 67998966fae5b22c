-- Catcher names belong to their sandbox (the URL is /catch/<sandboxId>/<name>), no longer to the
-- whole install, and what each catcher received is kept here, so every engine on the database
-- lists what any of them caught. Each catcher keeps its newest 50 requests.
alter table catchers drop constraint catchers_name_key;

create table catcher_requests (
  tenant_id text not null,
  catcher_name text not null,
  -- Arrival order: the newest are kept and listed first.
  seq bigint generated always as identity,
  id text not null,
  received_at timestamptz not null,
  method text not null,
  headers jsonb not null,
  -- The bytes as received (the first 64 KiB): text could not hold a NUL.
  body bytea not null,
  bytes int not null,
  verification jsonb not null,
  response_status int,
  delay_ms int not null,
  primary key (tenant_id, id),
  foreign key (tenant_id, catcher_name) references catchers (tenant_id, name) on delete cascade
);
create index catcher_requests_newest on catcher_requests (tenant_id, catcher_name, seq desc);
