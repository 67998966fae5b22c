-- Commerce column jobs whose run threw an error that is the row's, not the database's (issue 28, SPEC §12):
-- the job is set aside with its reason instead of being run and logged again at every poll. A failure
-- concerns the job a row owed at one due time (due_at, copied from the row's due column): while the row's due
-- column still holds it, every poll, claim and clock advance leaves that job out; a row given a new due time
-- owes a new job. Retrying deletes the failure. created_at is when it failed, real time, in milliseconds as
-- the API shows it (a list cursor carries it and must compare equal); failed_at_sandbox is the sandbox time the
-- job ran as of.
create table failed_jobs (
  tenant_id text not null references tenants on delete cascade,
  id text not null,
  kind text not null,
  object_id text not null,
  due_at timestamptz not null,
  reason text not null,
  failed_at_sandbox timestamptz,
  created_at timestamptz not null default date_trunc('milliseconds', now()),
  primary key (tenant_id, id),
  unique (tenant_id, kind, object_id, due_at)
);
create index failed_jobs_newest on failed_jobs (tenant_id, created_at desc, id desc);
