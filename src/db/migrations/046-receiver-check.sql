-- Receiver checks (SPEC §10) and chaos per endpoint.

-- A check's requests are attempts with trigger 'check'; chaos sends a delivery again with trigger 'duplicate'.
alter table attempts drop constraint attempts_trigger_check;
alter table attempts add constraint attempts_trigger_check
  check (trigger in ('initial', 'retry', 'replay', 'manual', 'check', 'duplicate'));
-- What chaos did to this attempt: {"duplicate": bool, "heldMs", "delayMs", "reorderMs"}; null when nothing.
alter table attempts add column chaos jsonb;

-- A check's deliveries belong to their run and case; they are recorded once answered and never retried.
alter table deliveries add column check_id text;
alter table deliveries add column check_case text;
-- The chaos drawn for this delivery (its hold and whether it is duplicated), once drawn.
alter table deliveries add column chaos jsonb;

-- Chaos settings ({"duplicateRate", "reorderWindowMs", "delayMs", "seed"}); null = off. Deliveries
-- are numbered for the seeded draws from chaos_since_seq, so setting the same seed again replays the same faults.
alter table webhook_endpoints add column chaos jsonb;
alter table webhook_endpoints add column chaos_since_seq bigint not null default 0;

create table check_runs (
  tenant_id text not null references tenants on delete cascade,
  id text not null,
  -- null for a check of a bare URL
  endpoint_id text,
  url text not null,
  -- the secret the run signed with, so the inspector's breakdown can recompute its signatures
  secret text not null,
  status text not null check (status in ('running', 'finished', 'interrupted')),
  report jsonb not null,
  created_at timestamptz not null,
  -- real time: a run still 'running' long after it began was cut off by a stop
  started_real timestamptz not null default now(),
  finished_at timestamptz,
  seq bigserial,
  primary key (tenant_id, id)
);
create index check_runs_recent on check_runs (tenant_id, seq desc);
