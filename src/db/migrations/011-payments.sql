-- Card payments with test-card behaviour, 3-D Secure challenges and refunds.

alter table payments
  add column provider text not null default 'sandbay',
  add column three_d_secure boolean not null default false,
  -- capability token of the challenge page (/3ds/<token>); null once decided
  add column challenge_token text,
  add column return_url text,
  -- the test card's refund behaviour: 'succeeds' or a refund failure reason
  add column refund_behavior text not null default 'succeeds',
  add column captured_at timestamptz;
create unique index payments_challenge on payments (challenge_token) where challenge_token is not null;
create index payments_recent on payments (tenant_id, created_at desc, id desc);

create table refunds (
  tenant_id text not null references tenants on delete cascade,
  id text not null,
  payment_id text not null,
  amount_minor bigint not null check (amount_minor > 0),
  currency text not null,
  status text not null check (status in ('succeeded', 'failed')),
  reason text not null,
  failure_reason text,
  created_at timestamptz not null,
  primary key (tenant_id, id)
);
create index refunds_payment on refunds (tenant_id, payment_id, created_at);
