-- Built-in catchers: receivers Sandbay hosts at /catch/<name> for demos without code.
-- The name is install-wide (it is the URL); the sandbox that claimed it configures it.
create table catchers (
  tenant_id text not null references tenants on delete cascade,
  name text not null unique,
  -- status: answer `status`; timeout: never answer; redirect: 302 (a failed attempt, SPEC §5.3)
  mode text not null check (mode in ('status', 'timeout', 'redirect')),
  status int not null,
  delay_ms int not null,
  created_at timestamptz not null,
  updated_at timestamptz not null,
  primary key (tenant_id, name)
);
