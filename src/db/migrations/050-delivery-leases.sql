-- The deliveries table is the queue of every engine on this database (docs/decisions.md, Team mode).
-- An engine leases a delivery for one attempt slot before sending it; the outcome is recorded only
-- if the lease is still its own for that slot. lease_until is real time (the database's now()), so
-- engines on several machines agree on when a crashed engine's lease has expired.
alter table deliveries
  add column lease_owner text,
  add column lease_until timestamptz,
  add column lease_slot int;

-- The claim: one endpoint's pending deliveries in due order (next_attempt_at is sandbox time; each
-- sandbox's offset is applied in the query). Also what an advance asks for, per sandbox.
create index deliveries_due on deliveries (tenant_id, endpoint_id, next_attempt_at) where status = 'pending';
-- Attempts in flight per endpoint (SPEC §5.2's ten, across engines): only leased rows are indexed.
create index deliveries_leased on deliveries (tenant_id, endpoint_id) where lease_owner is not null;
