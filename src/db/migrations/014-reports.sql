-- Saved report definitions with a schedule, and their runs.

create table saved_reports (
  tenant_id text not null references tenants on delete cascade,
  id text not null,
  name text not null,
  kind text not null,
  schedule text not null check (schedule in ('hourly', 'daily', 'weekly')),
  active boolean not null,
  next_due_at timestamptz,
  last_run_at timestamptz,
  created_at timestamptz not null,
  updated_at timestamptz not null,
  primary key (tenant_id, id)
);
create index saved_reports_recent on saved_reports (tenant_id, created_at desc, id desc);

create table report_runs (
  tenant_id text not null references tenants on delete cascade,
  id text not null,
  report_id text not null,
  due_at timestamptz not null,
  period_start timestamptz not null,
  period_end timestamptz not null,
  result jsonb not null,
  created_at timestamptz not null,
  primary key (tenant_id, id)
);
create index report_runs_report on report_runs (tenant_id, report_id, due_at desc, id desc);
