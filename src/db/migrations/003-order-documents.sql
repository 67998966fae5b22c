-- Each order keeps its API representation ready to send: GET /orders/{id} is then one
-- primary-key lookup of one text column, as cheap as a lookup gets on one PGlite connection.
-- Triggers keep it right whatever changes the order (placing, paying, approving, cancelling),
-- so no code path has to remember to refresh it.

-- json, not jsonb: it keeps the keys in the order the API documents them.
alter table orders add column items json not null default '[]';
alter table orders add column doc text;

-- Money in the document: exact decimal from integer minor units, without trailing zeros.
create function order_money(minor bigint) returns numeric language sql immutable as
  'select trim_scale(minor::numeric / 100)';

create function order_document() returns trigger language plpgsql as $$
begin
  -- A row copied with its document (seeding a sandbox from the template) keeps it.
  if tg_op = 'INSERT' and new.doc is not null then
    return new;
  end if;
  new.doc := json_build_object(
    'id', new.id,
    'status', new.status,
    'customerId', new.customer_id,
    'items', new.items,
    'total', order_money(new.total_minor),
    'currency', new.currency,
    'shippingAddress', json_build_object('city', new.city, 'district', new.district),
    'createdAt', to_char(new.created_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')
  )::text;
  return new;
end $$;

create trigger orders_document before insert or update on orders
  for each row execute function order_document();

-- Line items are written after their order; copy them onto it (which refreshes the document).
create function order_items_into_order() returns trigger language plpgsql as $$
begin
  update orders o set items = lines.items
    from (select a.tenant_id, a.order_id,
                 json_agg(json_build_object('variantId', i.variant_id, 'productId', i.product_id, 'name', i.name,
                   'quantity', i.quantity, 'unitPrice', order_money(i.unit_price_minor),
                   'lineTotal', order_money(i.line_total_minor)) order by i.position) as items
            from (select distinct tenant_id, order_id from added) a
            join order_items i on i.tenant_id = a.tenant_id and i.order_id = a.order_id
           group by a.tenant_id, a.order_id) lines
   where o.tenant_id = lines.tenant_id and o.id = lines.order_id and o.items::text is distinct from lines.items::text;
  return null;
end $$;

create trigger order_items_into_order after insert on order_items
  referencing new table as added for each statement execute function order_items_into_order();

-- Orders that exist already.
update orders o set items = lines.items
  from (select tenant_id, order_id,
               json_agg(json_build_object('variantId', variant_id, 'productId', product_id, 'name', name,
                 'quantity', quantity, 'unitPrice', order_money(unit_price_minor),
                 'lineTotal', order_money(line_total_minor)) order by position) as items
          from order_items group by tenant_id, order_id) lines
 where o.tenant_id = lines.tenant_id and o.id = lines.order_id;
update orders set status = status where doc is null;
