-- Lists that clients page through or poll for what is new (events, deliveries, the DLQ) order rows by
-- the transaction that inserted them, then by sequence, and show only rows of transactions below the
-- commit horizon (older than every transaction still running): a sequence number is taken at insert,
-- not at commit, so with several connections a row can commit after one with a higher number, and a
-- client that had read past it would never see it (docs/decisions.md, Team mode). Rows from before
-- this migration share its transaction id and keep their sequence order.
alter table events add column xid xid8 not null default pg_current_xact_id();
alter table deliveries add column xid xid8 not null default pg_current_xact_id();
create index events_listed on events (tenant_id, xid desc, seq desc);
create index deliveries_listed on deliveries (tenant_id, xid desc, seq desc);
