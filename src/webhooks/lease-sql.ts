// The SQL of delivery leases (./leases.ts): the conditions a claim checks, written once, and the statements built
// from them. `$name` placeholders are numbered by named() after the positional ones ($1 tenant, $2 endpoint, $3 URL).
import { notAdvancingSql } from '../schedule/clock.ts';
import { clockInRangeSql, sandboxNowSql } from '../schedule/clock-range.ts';
import { deliveryColumns } from './delivery-row.ts';

/** The delivery's columns an attempt needs (a DeliveryRow), and its sandbox's now. */
const returning = `returning ${deliveryColumns('d')},
  (extract(epoch from now()) * 1000)::float8 + t.clock_offset_ms as sandbox_now_ms`;
// clock_timestamp(), not now(): a lease runs from when it is taken, not from when its transaction began.
export const leaseUntil = (ms: string) => `clock_timestamp() + ${ms}::int * interval '1 ms'`;
const setLease = `lease_owner = $owner, lease_until = ${leaseUntil('$leaseMs')}, lease_slot = d.attempt_count + 1`;
/**
 * The delivery `d` is free to claim for the engine `owner`: no lease, or an expired one that is its own
 * or that it may take over (`settled`: EngineLiveness.settled(), it has seen the database answer for a
 * few heartbeats in a row, so a live owner has had the chance to record what it finished during an outage).
 */
export const notLeasedFor = (owner: string, settled: string) =>
  `(d.lease_until is null or (d.lease_until < now() and (d.lease_owner = ${owner} or ${settled})))`;
const notLeased = notLeasedFor('$owner', '$settled::boolean');
/**
 * No engine holds a live lease on the delivery `d` (what the pruner may delete); taking it over is notLeasedFor's
 * question.
 */
export const noLiveLease = '(d.lease_until is null or d.lease_until < now())';
/**
 * Due by its sandbox's clock, in a sandbox whose clock the engine can run (the others are quarantined:
 * ./quarantine.ts).
 */
const dueNow = `d.next_attempt_at <= ${sandboxNowSql('t')} and ${clockInRangeSql('t')}`;
/** The sandbox `t` is not being advanced (an advance runs its due work itself). */
const notAdvancing = notAdvancingSql('t');
// A delivery whose endpoint was deleted is claimable, so that its attempt dead-letters it.
const endpointOpen = `(d.endpoint_id is null or not exists (
  select 1 from webhook_endpoints e where e.tenant_id = d.tenant_id and e.id = d.endpoint_id and not e.enabled))`;
/** Rows of one target ($1 tenant, $2 endpoint or $3 bare URL), in a form the indexes serve. */
const sameTarget = (endpointId: string | null) =>
  endpointId === null
    ? `d.tenant_id = $1 and d.endpoint_id is null and d.target_url = $3::text and $2::text is null`
    : `d.tenant_id = $1 and d.endpoint_id = $2::text and $3::text is null`;

/**
 * The target's live leases ($owner and $sent: this engine and its finished attempts, which only wait to
 * be recorded) and the room they leave, as `room()` computes it: up to `soleHolderLeases` while no other
 * engine holds one, else what is left of the ten.
 */
export const usedSlots = (endpointId: string | null) => `select count(*) as n,
    greatest(0, case when count(*) filter (where d.lease_owner <> $owner) = 0 then $sole::int else $max::int end - count(*)) as room
  from deliveries d
  where ${sameTarget(endpointId)} and d.lease_owner is not null and d.lease_until > now()
    and not (d.lease_owner = $owner and d.id = any($sent::text[]))`;

/** Numbers `$name` placeholders after the positional ones, so the SQL above reads by name. */
export function named(sql: string, names: Record<string, unknown>, positional: unknown[]): [string, unknown[]] {
  const params = [...positional];
  const text = sql.replace(/\$([a-zA-Z]\w*)/g, (_, name: string) => {
    if (!(name in names)) throw new Error(`no parameter ${name}`);
    params.push(names[name]);
    return `$${params.length}`;
  });
  return [text, params];
}

/** claimMany's statement: the asked deliveries of one target that meet their conditions, as far as there is room. */
export const claimByIdSql = (endpointId: string | null) => `with used as (${usedSlots(endpointId)}), r as (
           select * from jsonb_to_recordset($asks::jsonb) as r(id text, statuses text, attempts int, due_by timestamptz, not_advancing boolean)
         ), c as (
           select d.tenant_id, d.id from deliveries d join r on r.id = d.id join tenants t on t.id = d.tenant_id
            where d.tenant_id = $1 and d.id = any($ids::text[]) and ${notLeased} and d.status = any(string_to_array(r.statuses, ','))
              and (r.attempts is null or d.attempt_count = r.attempts) and (r.due_by is null or d.next_attempt_at <= r.due_by)
              and (not r.not_advancing or ${notAdvancing})
            order by d.next_attempt_at nulls first limit (select room from used)
            for update of d skip locked for share of t
         )
         update deliveries d set ${setLease} from c, tenants t
          where d.tenant_id = c.tenant_id and d.id = c.id and t.id = d.tenant_id
         ${returning}`;

/** claimTarget's statement: the target's due deliveries, oldest first, as far as there is room; and that room. */
export const claimDueSql = (endpointId: string | null) => `with used as (${usedSlots(endpointId)}), c as (
           select d.tenant_id, d.id from deliveries d join tenants t on t.id = d.tenant_id
            where ${sameTarget(endpointId)} and d.status = 'pending' and ${dueNow} and ${notLeased} and ${endpointOpen} and ${notAdvancing}
            order by d.next_attempt_at limit (select room from used)
            for update of d skip locked for share of t
         )
         update deliveries d set ${setLease} from c, tenants t
          where d.tenant_id = c.tenant_id and d.id = c.id and t.id = d.tenant_id
         ${returning}, (select room from used) as room`;

/** The targets with due work no one holds a lease on ($1: the sandboxes left out). */
export const dueTargetsSql = `select e.tenant_id, e.id as endpoint_id, null::text as target_url
         from webhook_endpoints e join tenants t on t.id = e.tenant_id
        where e.enabled and not (e.tenant_id = any($1::text[])) and exists (
          select 1 from deliveries d where d.tenant_id = e.tenant_id and d.endpoint_id = e.id and d.status = 'pending' and ${dueNow} and ${notLeased})
          and ${notAdvancing}
       union all
       select distinct t.id, null, d.target_url
         from tenants t join deliveries d on d.tenant_id = t.id and d.endpoint_id is null and d.status = 'pending'
        where ${dueNow} and ${notLeased} and ${notAdvancing} and not (t.id = any($1::text[]))`;

/** leaseNew's statement: the room left and the first attempts' leases within it. */
export const leaseNewSql = (endpointId: string | null) => `with used as (${usedSlots(endpointId)}),
            pick as (select u.id from unnest($ids::text[]) with ordinality as u(id, n) order by u.n limit (select room from used))
       update deliveries d set lease_owner = $owner, lease_until = ${leaseUntil('$leaseMs')}, lease_slot = 1 from tenants t
        where d.tenant_id = $1 and d.id in (select id from pick) and t.id = d.tenant_id and ${notAdvancing} returning d.id`;
