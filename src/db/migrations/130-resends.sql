-- Edit and resend (issue 31): a resend is a new delivery that remembers the one it was made from, and
-- whether its data was edited, so each links to the other ("edited from dlv_…" / "resent as dlv_…").
-- wire_id is the deliveryId the receiver sees (envelope, X-Service-Delivery-Id, webhook-id) when it is
-- not the row's own id: a resend that kept the original's id, to test the receiver's idempotency.
alter table deliveries
  add column resent_from text,
  add column resend_edited boolean,
  add column wire_id text;
create index deliveries_resent_from on deliveries (tenant_id, resent_from) where resent_from is not null;
