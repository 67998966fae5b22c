-- Scopes never grow (SPEC §3): an OAuth client carries the scopes it may be granted (space-separated,
-- like a token's), its creator's by default, and every grant it asks for is capped by them. Every
-- client that exists before this migration keeps all 22 scopes, as it could be granted until now.
alter table oauth_clients add column scope text;
update oauth_clients
   set scope = 'orders:read orders:write payments:read payments:write catalog:read catalog:write '
            || 'customers:read customers:write b2b:read b2b:write vendors:read vendors:write '
            || 'payouts:read payouts:write reports:read reports:write security:read security:write '
            || 'webhooks:read webhooks:write sandbox:read sandbox:write';
alter table oauth_clients alter column scope set not null;
