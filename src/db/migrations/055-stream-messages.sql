-- The live stream (SPEC §5.7) shared by every engine on the database: the engine that sees a change
-- writes its message here (in batches, every 25 ms); every engine's reader reads the rows of
-- transactions that have ended below the commit horizon, in (xid, seq) order, and hands them to its
-- own SSE clients. A message's id is `<xid>-<seq>`, the same on every engine, so Last-Event-ID
-- resumes anywhere. No foreign key to tenants: a message about a sandbox deleted a moment ago must not
-- fail its batch. Rows older than a few minutes are pruned; meta's stream_pruned_through says up to where.
create table stream_messages (
  tenant_id text not null,
  xid xid8 not null default pg_current_xact_id(),
  seq bigint generated always as identity,
  event text not null,
  data jsonb not null,
  created_at timestamptz not null default now(),
  primary key (tenant_id, xid, seq)
);
-- The readers' order, and the pruner's.
create index stream_messages_position on stream_messages (xid, seq);

-- Only watched sandboxes' messages are written: a sandbox is watched while a client of any engine
-- streams it, and for the resume window after (watched_until, renewed while connected). since_xid is
-- the transaction that began the current unbroken watch: a Last-Event-ID before it may have missed
-- messages that were never written, so it gets `reset`.
create table stream_watchers (
  tenant_id text primary key,
  watched_until timestamptz not null,
  since_xid xid8 not null
);
