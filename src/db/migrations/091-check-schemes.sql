-- A receiver check signs in its endpoint's schemes (SPEC §11): which ones, and for ed25519 the public key
-- of the key it signed with, so the inspector's breakdown of its deliveries can verify them.
alter table check_runs
  add column signature text[] not null default '{sandbay}',
  add column public_key text;
