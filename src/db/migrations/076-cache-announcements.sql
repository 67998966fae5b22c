-- Every change to a row an engine caches is announced by the database itself, whichever code (or psql
-- session) makes it: NOTIFY sandbay_invalidate, delivered at COMMIT to every listening engine, the
-- writer's own included, and never for a change rolled back. src/db/cache-registry.ts lists what each
-- cache holds and which of these triggers keep it true; tests/unit/cache-registry.test.ts holds the two
-- to each other. (NOTIFY sends identical payloads of one transaction once: a mass revocation is one
-- message per sandbox.)

-- An endpoint and its secrets make one cached target: a change to either drops it.
create function announce_endpoint() returns trigger language plpgsql as $$
declare
  changed webhook_endpoints := case when tg_op = 'DELETE' then old else new end;
begin
  perform pg_notify('sandbay_invalidate', json_build_object('cache', 'endpoints', 'tenantId', changed.tenant_id, 'id', changed.id)::text);
  return null;
end $$;

create function announce_endpoint_secret() returns trigger language plpgsql as $$
declare
  changed webhook_secrets := case when tg_op = 'DELETE' then old else new end;
begin
  perform pg_notify('sandbay_invalidate', json_build_object('cache', 'endpoints', 'tenantId', changed.tenant_id, 'id', changed.endpoint_id)::text);
  return null;
end $$;

create trigger webhook_endpoints_announce after insert or update or delete on webhook_endpoints
  for each row execute function announce_endpoint();
create trigger webhook_secrets_announce after insert or update or delete on webhook_secrets
  for each row execute function announce_endpoint_secret();

-- Issuing a token changes no cached one, nor does using a refresh token; revoking or deleting one does
-- (announced by sandbox: see above).
create function announce_tokens() returns trigger language plpgsql as $$
begin
  perform pg_notify('sandbay_invalidate', json_build_object('cache', 'tokens', 'tenantId', old.tenant_id)::text);
  return null;
end $$;

create trigger oauth_tokens_announce after update on oauth_tokens
  for each row when (old.revoked_at is distinct from new.revoked_at or old.expires_at is distinct from new.expires_at
                     or old.scope is distinct from new.scope or old.tenant_id is distinct from new.tenant_id)
  execute function announce_tokens();
create trigger oauth_tokens_announce_delete after delete on oauth_tokens
  for each row execute function announce_tokens();

create function announce_clock() returns trigger language plpgsql as $$
begin
  perform pg_notify('sandbay_invalidate', json_build_object('cache', 'clock', 'tenantId', new.id, 'offsetMs', new.clock_offset_ms)::text);
  return null;
end $$;

create trigger tenants_clock_announce after update of clock_offset_ms on tenants
  for each row when (old.clock_offset_ms is distinct from new.clock_offset_ms) execute function announce_clock();

create function announce_test_secret() returns trigger language plpgsql as $$
begin
  perform pg_notify('sandbay_invalidate', json_build_object('cache', 'testSecrets', 'tenantId', new.id)::text);
  return null;
end $$;

create trigger tenants_test_secret_announce after update of webhook_test_secret on tenants
  for each row when (old.webhook_test_secret is distinct from new.webhook_test_secret) execute function announce_test_secret();
