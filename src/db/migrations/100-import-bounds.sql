-- What must never be stored, whoever writes it (SPEC §12: an imported sandbox file is untrusted input;
-- the import checks every row first, these are the database's own word on it). NOT VALID: rows
-- already stored are left to the engine's own handling; every row written from now on is checked.

-- A sandbox clock within 100 years of real time either way (src/shared/clock-bounds.ts).
alter table tenants add constraint tenants_clock_offset_bounded
  check (clock_offset_ms between -3155760000000 and 3155760000000) not valid;

-- Only the signing schemes Sandbay knows (src/shared/schemes.ts), at least one.
alter table webhook_endpoints add constraint webhook_endpoints_signature_known
  check (cardinality(signature) between 1 and 10
         and signature <@ array['sandbay', 'standard-webhooks', 'standard-webhooks-ed25519']) not valid;
alter table attempts add constraint attempts_signature_known
  check (signature <@ array['sandbay', 'standard-webhooks', 'standard-webhooks-ed25519']) not valid;

-- An endpoint that came in a sandbox file arrives disabled with its own reason, until a user enables it.
alter table webhook_endpoints drop constraint webhook_endpoints_disabled_reason_check;
alter table webhook_endpoints add constraint webhook_endpoints_disabled_reason_check
  check (disabled_reason in ('gone', 'user', 'imported'));

-- Sizes: a URL as the API takes it, a delivery's body (its payload is at most 1 MiB; room for the envelope).
alter table webhook_endpoints add constraint webhook_endpoints_url_size check (length(url) <= 2048) not valid;
alter table deliveries add constraint deliveries_body_size check (octet_length(body) <= 2097152) not valid;
