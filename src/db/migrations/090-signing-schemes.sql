-- Signing schemes per endpoint (SPEC §11) and what a receiver's answer does to the schedule (SPEC §5.3).

-- The schemes an endpoint signs with, in the order given: 'sandbay', 'standard-webhooks',
-- 'standard-webhooks-ed25519' (several at once during a migration).
alter table webhook_endpoints add column signature text[] not null default '{sandbay}';
-- Why and when an endpoint was disabled: 'gone' (its receiver answered 410 Gone; the delivery is
-- named) or 'user' (PATCH enabled:false). Null while enabled.
alter table webhook_endpoints
  add column disabled_reason text check (disabled_reason in ('gone', 'user')),
  add column disabled_at timestamptz,
  add column disabled_delivery_id text;

-- A secret's generation also holds an ed25519 signing key (whsk_…), for standard-webhooks-ed25519;
-- it rotates with the secret. Null for generations made before the endpoint used that scheme.
alter table webhook_secrets add column signing_key text;

-- The schemes an attempt was signed with, and every signing header it carried ({"name": "value"}).
alter table attempts
  add column signature text[] not null default '{sandbay}',
  add column signature_headers jsonb;
-- How the receiver's answer changed the schedule: {"retryAfter": {"value", "delaySeconds", "capped", "applied"}}
-- and/or {"disabledEndpoint": true}; null when it did not.
alter table attempts add column schedule_note jsonb;
