import type { Queryable, Tx } from '../../db/database.ts';
import { newId } from '../../shared/ids.ts';
import { notFound, illegalTransition } from '../../shared/problem.ts';
import {
  vendorAppliedData,
  vendorApprovedData,
  vendorRejectedData,
  vendorSuspendedData,
  type VendorEventRow,
} from '../../webhooks/topics/data/vendors.ts';
import { recomputeBuybox } from '../buybox/buybox.ts';
import { iso, keyset, keysetParams, type PageOptions } from '../commerce/deps.ts';
import type { DomainDeps } from '../deps.ts';

export interface VendorApplication {
  name: string;
  email: string;
  city?: string;
  taxNumber: string;
  iban: string;
  commissionBps?: number;
}

export interface VendorPatch {
  email?: string;
  city?: string;
  iban?: string;
  standing?: number;
  commissionBps?: number;
}

interface VendorRow extends VendorEventRow {
  status: string;
  tax_number: string | null;
  iban: string | null;
  standing: number;
  decided_at: Date | null;
}

const toVendor = (v: VendorRow) => ({
  id: v.id,
  name: v.name,
  status: v.status,
  statusReason: v.status_reason,
  email: v.email,
  city: v.city,
  taxNumber: v.tax_number,
  iban: v.iban,
  commissionBps: v.commission_bps,
  standing: v.standing,
  createdAt: v.created_at.toISOString(),
  updatedAt: iso(v.updated_at),
  decidedAt: iso(v.decided_at),
});

export type Vendor = ReturnType<typeof toVendor>;

/** One vendor. */
export async function getVendor(q: Queryable, tenantId: string, id: string): Promise<Vendor> {
  const [row] = await q.query<VendorRow>('select * from vendors where tenant_id = $1 and id = $2', [tenantId, id]);
  if (!row) throw notFound('vendor');
  return toVendor(row);
}

/** Vendors, newest first, by status. */
export async function listVendors(
  q: Queryable,
  tenantId: string,
  page: PageOptions & { status?: string },
): Promise<Vendor[]> {
  const k = keyset('v', 4);
  const rows = await q.query<VendorRow>(
    `select * from vendors v where v.tenant_id = $1 and ($3::text is null or v.status = $3) and ${k.where} ${k.order} limit $2`,
    [tenantId, page.limit, page.status ?? null, ...keysetParams(page)],
  );
  return rows.map(toVendor);
}

/** A marketplace seller applies; it sells once approved. Emits vendor.applied. */
export async function applyVendor(deps: DomainDeps, tenantId: string, input: VendorApplication): Promise<Vendor> {
  const id = newId('ven');
  await deps.db.transaction(async (tx) => {
    const now = deps.clock.now(tenantId);
    const [row] = await tx.query<VendorRow>(
      `insert into vendors (tenant_id, id, name, status, commission_bps, city, email, tax_number, iban, created_at, updated_at)
       values ($1, $2, $3, 'applied', $4, $5, $6, $7, $8, $9, $9) returning *`,
      [
        tenantId,
        id,
        input.name,
        input.commissionBps ?? 1000,
        input.city ?? null,
        input.email,
        input.taxNumber,
        input.iban,
        now,
      ],
    );
    await deps.events.emit(tx, tenantId, 'vendor.applied', vendorAppliedData(row), { occurredAt: now });
  });
  return getVendor(deps.db, tenantId, id);
}

/** Locks a vendor whose status is one of `from`, or refuses with vendor_<status>. */
async function lockVendor(tx: Tx, tenantId: string, id: string, from: string[], action: string): Promise<VendorRow> {
  const [row] = await tx.query<VendorRow>('select * from vendors where tenant_id = $1 and id = $2 for update', [
    tenantId,
    id,
  ]);
  if (!row) throw notFound('vendor');
  if (!from.includes(row.status)) throw illegalTransition('vendor', row.status, action);
  return row;
}

async function setStatus(
  tx: Tx,
  tenantId: string,
  id: string,
  status: string,
  reason: string | null,
  now: Date,
): Promise<VendorRow> {
  const [row] = await tx.query<VendorRow>(
    `update vendors set status = $3, status_reason = $4, decided_at = $5, updated_at = $5 where tenant_id = $1 and id = $2 returning *`,
    [tenantId, id, status, reason, now],
  );
  return row;
}

const offeredVariants = async (tx: Tx, tenantId: string, vendorId: string) =>
  (
    await tx.query<{ variant_id: string }>(
      'select variant_id from vendor_offers where tenant_id = $1 and vendor_id = $2',
      [tenantId, vendorId],
    )
  ).map((r) => r.variant_id);

/** applied → approved, or suspended → approved (reinstated: its offers compete for the buybox again). */
export async function approveVendor(deps: DomainDeps, tenantId: string, id: string): Promise<Vendor> {
  await deps.db.transaction(async (tx) => {
    const before = await lockVendor(tx, tenantId, id, ['applied', 'suspended'], 'approve');
    const now = deps.clock.now(tenantId);
    const row = await setStatus(tx, tenantId, id, 'approved', null, now);
    await deps.events.emit(tx, tenantId, 'vendor.approved', vendorApprovedData(row, before.status as 'applied'), {
      occurredAt: now,
    });
    if (before.status === 'suspended')
      await recomputeBuybox(tx, deps, tenantId, await offeredVariants(tx, tenantId, id), 'vendor_reinstated', now);
  });
  return getVendor(deps.db, tenantId, id);
}

/** applied → rejected, with an optional reason (vendor.rejected). */
export async function rejectVendor(deps: DomainDeps, tenantId: string, id: string, reason?: string): Promise<Vendor> {
  await deps.db.transaction(async (tx) => {
    await lockVendor(tx, tenantId, id, ['applied'], 'reject');
    const now = deps.clock.now(tenantId);
    const row = await setStatus(tx, tenantId, id, 'rejected', reason ?? null, now);
    await deps.events.emit(tx, tenantId, 'vendor.rejected', vendorRejectedData(row), { occurredAt: now });
  });
  return getVendor(deps.db, tenantId, id);
}

/** approved → suspended: its offers leave the buybox (buybox.winner_changed where it was winning). */
export async function suspendVendor(deps: DomainDeps, tenantId: string, id: string, reason?: string): Promise<Vendor> {
  await deps.db.transaction(async (tx) => {
    await lockVendor(tx, tenantId, id, ['approved'], 'suspend');
    const now = deps.clock.now(tenantId);
    const row = await setStatus(tx, tenantId, id, 'suspended', reason ?? null, now);
    const replaced = await recomputeBuybox(
      tx,
      deps,
      tenantId,
      await offeredVariants(tx, tenantId, id),
      'vendor_suspended',
      now,
    );
    const lost = replaced.filter((w) => w.vendor_id === id).length;
    await deps.events.emit(tx, tenantId, 'vendor.suspended', vendorSuspendedData(row, lost), { occurredAt: now });
  });
  return getVendor(deps.db, tenantId, id);
}

/** Contact, bank account, commission or standing; a new standing can change buybox ties. */
export async function updateVendor(
  deps: DomainDeps,
  tenantId: string,
  id: string,
  patch: VendorPatch,
): Promise<Vendor> {
  await deps.db.transaction(async (tx) => {
    const before = await lockVendor(tx, tenantId, id, ['applied', 'approved', 'rejected', 'suspended'], 'update');
    const now = deps.clock.now(tenantId);
    await tx.query(
      `update vendors set email = coalesce($3, email), city = coalesce($4, city), iban = coalesce($5, iban), standing = coalesce($6, standing),
              commission_bps = coalesce($7, commission_bps), updated_at = $8
        where tenant_id = $1 and id = $2`,
      [
        tenantId,
        id,
        patch.email ?? null,
        patch.city ?? null,
        patch.iban ?? null,
        patch.standing ?? null,
        patch.commissionBps ?? null,
        now,
      ],
    );
    if (patch.standing !== undefined && patch.standing !== before.standing) {
      await recomputeBuybox(
        tx,
        deps,
        tenantId,
        await offeredVariants(tx, tenantId, id),
        'vendor_standing_changed',
        now,
      );
    }
  });
  return getVendor(deps.db, tenantId, id);
}
