-- An Idempotency-Key is claimed with a row before its handler runs (no response yet), so engines
-- sharing one database run a key's handler once; the response is stored in the handler's own
-- transaction. `claim_token` names the request that holds the claim; `omitted` lists the response
-- fields kept out of the stored copy (secrets the database otherwise keeps only hashed).
alter table idempotency_keys
  alter column status drop not null,
  alter column response drop not null,
  add column claim_token text,
  add column omitted text[];

-- The purge of responses past their 24 h window.
create index idempotency_keys_created_at on idempotency_keys (created_at);
