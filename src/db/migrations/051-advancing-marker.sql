-- A clock advance marks its sandbox while it runs (real time, renewed as it goes), so the real-time
-- claims of every engine leave that sandbox's due work to the advance (docs/decisions.md, Team mode).
-- A crashed advance's mark runs out by itself.
alter table tenants add column advancing_until timestamptz;
