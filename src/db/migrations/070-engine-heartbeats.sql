-- Which engines are alive (docs/decisions.md, Faults): each engine renews its row every few seconds
-- through its pool, so no connection has to stay open for an engine to count as alive, and a database
-- restart does not make a live engine look dead. Another engine takes over the leases of an engine
-- whose alive_until has passed (or that has no row: it closed, or never started), once it has seen the
-- database answer for a whole alive period itself. A table of the server, not of a sandbox (like meta).
create table engine_heartbeats (
  engine_id text primary key,
  alive_until timestamptz not null,
  started_at timestamptz not null default now()
);

-- A clock advance claims its sandbox's mark (advancing_until) by this token, so that only the advance
-- holding it renews or clears it: a second advance of the sandbox, on any engine, sees the mark taken
-- and waits (holding no connection) or answers 409 advance_in_progress.
alter table tenants add column advancing_owner text;
