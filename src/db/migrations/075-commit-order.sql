-- Lists and the live stream in commit order, per sandbox, without reading the server-wide commit
-- horizon (docs/decisions.md, "Commit order per sandbox"): one idle transaction anywhere on the server
-- no longer holds them back.
--
-- Each sandbox has its own counters, in tables of their own (not the tenants row, which delivery claims
-- hold FOR SHARE), so the lists' writers and the stream's writers never wait on each other.

-- Lists (events, deliveries, the DLQ). A transaction that inserts a sandbox's events or deliveries takes
-- the sandbox's next commit position at its COMMIT (a deferred constraint trigger), under the counter
-- row's lock: writers of one sandbox serialise only for the moment of their commits, and a position is
-- visible only once every lower one is (the lock is released after the commit became visible). Rows are
-- listed by (position of their transaction, seq).
create table list_counters (
  tenant_id text primary key references tenants on delete cascade,
  -- the last commit position handed out
  position bigint not null default 0,
  -- deliveries committed, ever; and that count when the sandbox was last pruned (the pruner's trigger)
  deliveries bigint not null default 0,
  pruned_at bigint not null default 0
);

create table list_commits (
  tenant_id text not null references tenants on delete cascade,
  xid xid8 not null,
  position bigint not null,
  primary key (tenant_id, xid)
);
create unique index list_commits_position on list_commits (tenant_id, position);

-- Rows from before this migration keep their order: by inserting transaction.
with positioned as (
  select tenant_id, xid, row_number() over (partition by tenant_id order by xid) as position
    from (select tenant_id, xid from events union select tenant_id, xid from deliveries) x
)
insert into list_commits (tenant_id, xid, position) select tenant_id, xid, position from positioned;
insert into list_counters (tenant_id, position, deliveries, pruned_at)
  select t.id, coalesce(c.position, 0), coalesce(d.n, 0), coalesce(d.n, 0)
    from tenants t
    left join (select tenant_id, max(position) as position from list_commits group by tenant_id) c on c.tenant_id = t.id
    left join (select tenant_id, count(*) as n from deliveries group by tenant_id) d on d.tenant_id = t.id;

-- Fires for every row; the first firing of a transaction for a sandbox does the work, the others find
-- its list_commits row and return.
create function list_commit() returns trigger language plpgsql as $$
declare
  me xid8 := pg_current_xact_id();
  taken bigint;
begin
  if exists (select 1 from list_commits where tenant_id = new.tenant_id and xid = me) then
    return null;
  end if;
  insert into list_counters as c (tenant_id, position, deliveries)
    values (new.tenant_id, 1, (select count(*) from deliveries d where d.tenant_id = new.tenant_id and d.xid = me))
    on conflict (tenant_id) do update set position = c.position + 1, deliveries = c.deliveries + excluded.deliveries
    returning position into taken;
  insert into list_commits (tenant_id, xid, position) values (new.tenant_id, me, taken);
  return null;
end $$;

create constraint trigger events_list_commit after insert on events
  deferrable initially deferred for each row execute function list_commit();
create constraint trigger deliveries_list_commit after insert on deliveries
  deferrable initially deferred for each row execute function list_commit();

-- The live stream: message ids are per sandbox (`seq`), handed out in commit order under the sandbox's
-- stream counter, so a reader that has read up to n never misses a message numbered below n. The
-- messages of the horizon design live only minutes; clients holding their ids get `reset`.
drop table stream_messages;
drop table stream_watchers;
delete from meta where key = 'stream_pruned_through';

create table stream_counters (
  tenant_id text primary key references tenants on delete cascade,
  -- the last number handed out: to a message, or to the start of a watch
  seq bigint not null default 0
);

-- No foreign key: a message about a sandbox deleted a moment ago must not fail its batch.
create table stream_messages (
  tenant_id text not null,
  seq bigint not null,
  event text not null,
  data jsonb not null,
  created_at timestamptz not null default now(),
  primary key (tenant_id, seq)
);
create index stream_messages_age on stream_messages (created_at);

-- Only watched sandboxes' messages are written: a sandbox is watched while a client of any engine
-- streams it, and for the resume window after (watched_until, renewed while connected). A watch that
-- starts (again) takes a number of its own, since_seq: every number after it is a message written
-- during this watch, and a Last-Event-ID before it may have missed messages never written (`reset`).
create table stream_watchers (
  tenant_id text primary key,
  watched_until timestamptz not null,
  since_seq bigint not null
);
