-- OAuth clients as a real provider keeps them (docs/decisions.md, Secrets at rest): a confidential
-- client's secret is stored as its SHA-256 (it is 40 random characters, so a fast hash is enough),
-- shown in full once at creation or rotation, and only its hint (prefix and last four) afterwards.
-- A public client (registered as such) has no secret and must use PKCE. Every client that exists
-- before this migration is a sandbox's own credentials client, which is always confidential.
alter table oauth_clients add column secret_hash text;
alter table oauth_clients add column secret_hint text;
alter table oauth_clients add column public boolean not null default false;
alter table oauth_clients add column sandbox_client boolean not null default false;
alter table oauth_clients add column name text;
update oauth_clients
   set secret_hash = encode(sha256(convert_to(client_secret, 'UTF8')), 'hex'),
       secret_hint = 'cs_…' || right(client_secret, 4),
       sandbox_client = true;
alter table oauth_clients drop column client_secret;
alter table oauth_clients add constraint oauth_clients_secret
  check ((public and secret_hash is null) or (not public and secret_hash is not null and secret_hint is not null));
alter table oauth_clients add constraint oauth_clients_sandbox_client_confidential check (not (sandbox_client and public));
create unique index oauth_clients_one_sandbox_client on oauth_clients (tenant_id) where sandbox_client;
