import { createHash } from 'node:crypto';
import type { Queryable, Tx } from '../../db/database.ts';
import { newId, randomString } from '../../shared/ids.ts';
import { ApiError, notFound, illegalTransition, unknownReference } from '../../shared/problem.ts';
import {
  staffAcceptedData,
  staffInvitedData,
  type staffRoles,
  type StaffEventRow,
} from '../../webhooks/topics/data/security.ts';
import { iso, keyset, keysetParams, type PageOptions } from '../commerce/deps.ts';
import type { DomainDeps } from '../deps.ts';
import { constantTimeEqual } from '../../shared/hmac.ts';
import { audit } from './audit.ts';

interface StaffRow extends StaffEventRow {
  status: string;
  invitation_hash: string | null;
  created_at: Date;
}

const toStaff = (s: StaffRow) => ({
  id: s.id,
  email: s.email,
  name: s.name,
  role: s.role,
  status: s.status,
  invitedBy: s.invited_by,
  invitedAt: s.invited_at.toISOString(),
  acceptedAt: iso(s.accepted_at),
  createdAt: s.created_at.toISOString(),
});

export type StaffMember = ReturnType<typeof toStaff>;

const hash = (token: string) => createHash('sha256').update(token).digest('hex');

/** One staff member (never the invitation token). */
export async function getStaff(q: Queryable, tenantId: string, id: string): Promise<StaffMember> {
  const [row] = await q.query<StaffRow>('select * from staff_members where tenant_id = $1 and id = $2', [tenantId, id]);
  if (!row) throw notFound('staff member');
  return toStaff(row);
}

/** Staff members, newest first, by status. */
export async function listStaff(
  q: Queryable,
  tenantId: string,
  page: PageOptions & { status?: string },
): Promise<StaffMember[]> {
  const k = keyset('s', 4);
  const rows = await q.query<StaffRow>(
    `select * from staff_members s where s.tenant_id = $1 and ($3::text is null or s.status = $3) and ${k.where} ${k.order} limit $2`,
    [tenantId, page.limit, page.status ?? null, ...keysetParams(page)],
  );
  return rows.map(toStaff);
}

/** A fresh invitation token: returned once, stored only as a hash (like a secret). */
async function issueInvitation(
  tx: Tx,
  tenantId: string,
  id: string,
  now: Date,
): Promise<{ row: StaffRow; token: string }> {
  const token = `inv_${randomString(32)}`;
  const [row] = await tx.query<StaffRow>(
    'update staff_members set invitation_hash = $3, invited_at = $4 where tenant_id = $1 and id = $2 returning *',
    [tenantId, id, hash(token), now],
  );
  return { row, token };
}

/** Invites a staff member by email (staff.invited); the response carries the invitation token, once. */
export async function inviteStaff(
  deps: DomainDeps,
  tenantId: string,
  input: { email: string; name: string; role: (typeof staffRoles)[number]; invitedBy?: string },
): Promise<StaffMember & { invitationToken: string }> {
  return deps.db.transaction(async (tx) => {
    const now = deps.clock.now(tenantId);
    if (input.invitedBy) {
      const [inviter] = await tx.query<{ status: string }>(
        'select status from staff_members where tenant_id = $1 and id = $2',
        [tenantId, input.invitedBy],
      );
      if (inviter?.status !== 'active')
        throw unknownReference(
          'staff_not_found',
          '/invitedBy',
          `No active staff member ${input.invitedBy} in this sandbox.`,
        );
    }
    const [taken] = await tx.query<{ id: string }>(
      'select id from staff_members where tenant_id = $1 and lower(email) = lower($2)',
      [tenantId, input.email],
    );
    if (taken)
      throw new ApiError(409, 'staff_email_taken', `${input.email} is already a staff member (${taken.id}).`, {
        extra: { staffId: taken.id },
      });
    const id = newId('stf');
    await tx.query(
      `insert into staff_members (tenant_id, id, email, name, role, status, invited_by, invited_at, created_at)
       values ($1, $2, $3, $4, $5, 'invited', $6, $7, $7)`,
      [tenantId, id, input.email, input.name, input.role, input.invitedBy ?? null, now],
    );
    const { row, token } = await issueInvitation(tx, tenantId, id, now);
    await audit(
      tx,
      tenantId,
      { actorId: input.invitedBy ?? 'api', action: 'staff.invited', targetId: id, details: { role: input.role } },
      now,
    );
    await deps.events.emit(tx, tenantId, 'staff.invited', staffInvitedData(row), { occurredAt: now });
    return { ...toStaff(row), invitationToken: token };
  });
}

/** Sends the invitation again with a new token (the old one stops working); staff.invited again. */
export async function resendInvitation(
  deps: DomainDeps,
  tenantId: string,
  id: string,
): Promise<StaffMember & { invitationToken: string }> {
  return deps.db.transaction(async (tx) => {
    const [s] = await tx.query<StaffRow>('select * from staff_members where tenant_id = $1 and id = $2 for update', [
      tenantId,
      id,
    ]);
    if (!s) throw notFound('staff member');
    if (s.status !== 'invited') throw illegalTransition('staff', s.status, 'invite');
    const now = deps.clock.now(tenantId);
    const { row, token } = await issueInvitation(tx, tenantId, id, now);
    await deps.events.emit(tx, tenantId, 'staff.invited', staffInvitedData(row), { occurredAt: now });
    return { ...toStaff(row), invitationToken: token };
  });
}

/** invited → active with the invitation token (staff.accepted). A wrong token is a 422. */
export async function acceptInvitation(
  deps: DomainDeps,
  tenantId: string,
  id: string,
  token: string,
): Promise<StaffMember> {
  await deps.db.transaction(async (tx) => {
    const [s] = await tx.query<StaffRow>('select * from staff_members where tenant_id = $1 and id = $2 for update', [
      tenantId,
      id,
    ]);
    if (!s) throw notFound('staff member');
    if (s.status !== 'invited') throw illegalTransition('staff', s.status, 'accept the invitation of');
    if (!s.invitation_hash || !constantTimeEqual(s.invitation_hash, hash(token))) {
      throw new ApiError(
        422,
        'invalid_invitation_token',
        'That is not the current invitation token of this staff member.',
        {
          errors: [{ path: '/token', message: 'Wrong or superseded invitation token.' }],
        },
      );
    }
    const now = deps.clock.now(tenantId);
    const [row] = await tx.query<StaffRow>(
      `update staff_members set status = 'active', accepted_at = $3, invitation_hash = null where tenant_id = $1 and id = $2 returning *`,
      [tenantId, id, now],
    );
    await audit(tx, tenantId, { actorId: id, action: 'staff.accepted', targetId: id }, now);
    await deps.events.emit(tx, tenantId, 'staff.accepted', staffAcceptedData(row), { occurredAt: now });
  });
  return getStaff(deps.db, tenantId, id);
}
