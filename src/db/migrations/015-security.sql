-- Staff accounts, customer impersonation with an audit trail, and IYS commercial-message consent.

create table staff_members (
  tenant_id text not null references tenants on delete cascade,
  id text not null,
  email text not null,
  name text not null,
  role text not null check (role in ('owner', 'admin', 'support', 'viewer')),
  status text not null check (status in ('invited', 'active')),
  -- SHA-256 of the invitation token (shown once, like a secret)
  invitation_hash text,
  invited_by text,
  invited_at timestamptz not null,
  accepted_at timestamptz,
  created_at timestamptz not null,
  primary key (tenant_id, id)
);
create unique index staff_email on staff_members (tenant_id, lower(email));
create index staff_recent on staff_members (tenant_id, created_at desc, id desc);

create table impersonation_sessions (
  tenant_id text not null references tenants on delete cascade,
  id text not null,
  staff_id text not null,
  customer_id text not null,
  reason text not null,
  status text not null check (status in ('active', 'ended')),
  started_at timestamptz not null,
  expires_at timestamptz not null,
  ended_at timestamptz,
  end_reason text,
  created_at timestamptz not null,
  primary key (tenant_id, id)
);
create index impersonation_recent on impersonation_sessions (tenant_id, created_at desc, id desc);

create table audit_log (
  tenant_id text not null references tenants on delete cascade,
  id text not null,
  actor_id text not null,
  action text not null,
  target_id text not null,
  details jsonb not null,
  created_at timestamptz not null,
  primary key (tenant_id, id)
);
create index audit_log_recent on audit_log (tenant_id, created_at desc, id desc);

-- One row per customer and channel: the latest consent, and the IYS push it owes.
create table consents (
  tenant_id text not null references tenants on delete cascade,
  id text not null,
  customer_id text not null,
  channel text not null check (channel in ('sms', 'email', 'call')),
  recipient text not null,
  status text not null check (status in ('granted', 'revoked')),
  source text not null,
  consent_at timestamptz not null,
  push_due_at timestamptz,
  last_pushed_at timestamptz,
  created_at timestamptz not null,
  updated_at timestamptz not null,
  primary key (tenant_id, id),
  unique (tenant_id, customer_id, channel)
);
create index consents_recent on consents (tenant_id, created_at desc, id desc);
