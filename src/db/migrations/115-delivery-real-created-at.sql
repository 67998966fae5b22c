-- When the database recorded a delivery, on the real clock: created_at is on the sandbox clock, which a
-- test advances (SPEC §5.5), so "created after this moment" (sandbay/testing's waitForDelivery, the
-- deliveries list's `since`) needs a time no clock advance moves. The transaction's start: the delivery
-- is recorded by the request or job that caused it. Deliveries older than this migration get its time.
alter table deliveries add column real_created_at timestamptz not null default now();
