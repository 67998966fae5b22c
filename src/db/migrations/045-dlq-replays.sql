-- Jobs that replay the dead-letter queue (POST /api/v1/webhooks/dlq/replay). The work runs in
-- the engine process that accepted the request; the row is its progress, readable by every
-- engine. Times are real (now()), not sandbox time: updated_at doubles as the worker's
-- heartbeat, so a running job whose worker died shows as interrupted.
create table dlq_replay_jobs (
  tenant_id text not null references tenants on delete cascade,
  id text not null,
  topic text,
  endpoint_id text,
  state text not null check (state in ('running', 'completed', 'cancelled', 'interrupted')),
  total int not null,
  succeeded int not null default 0,
  failed int not null default 0,
  skipped int not null default 0,
  -- milliseconds, as the API shows it: a list cursor carries it and must compare equal
  created_at timestamptz not null default date_trunc('milliseconds', now()),
  updated_at timestamptz not null default now(),
  finished_at timestamptz,
  primary key (tenant_id, id)
);
-- One running replay per sandbox: a second would replay the same dead deliveries again.
create unique index dlq_replay_jobs_one_running on dlq_replay_jobs (tenant_id) where state = 'running';
create index dlq_replay_jobs_newest on dlq_replay_jobs (tenant_id, created_at desc, id desc);
