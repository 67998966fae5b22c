-- Replay to another URL (issue 31): a delivery sent to a bare URL but signed as an endpoint, with its keys at each
-- attempt (`sandbay deliveries replay --to URL`: the original endpoint's secret, what the receiver verifies with).
-- resent_from_attempt is the original's last attempt when the resend was made: the span its trace links to.
alter table deliveries
  add column signing_endpoint_id text,
  add column resent_from_attempt int;
