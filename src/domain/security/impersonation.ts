import type { Queryable, Tx } from '../../db/database.ts';
import { newId } from '../../shared/ids.ts';
import { ApiError, notFound, illegalTransition, unknownReference } from '../../shared/problem.ts';
import {
  impersonationEndedData,
  impersonationStartedData,
  type SessionEventRow,
} from '../../webhooks/topics/data/security.ts';
import {
  cancelAfterCommit,
  iso,
  keyset,
  keysetParams,
  scheduleAfterCommit,
  type CommerceDeps,
  type PageOptions,
} from '../commerce/deps.ts';
import { columnJobHandler } from '../commerce/jobs.ts';
import { audit } from './audit.ts';

export const impersonationTimeoutJob = 'impersonation.timeout';

/** Roles that may act as a customer; viewers only look. */
const impersonatingRoles = new Set(['owner', 'admin', 'support']);

interface SessionRow extends SessionEventRow {
  status: string;
  created_at: Date;
}

const toSession = (s: SessionRow) => ({
  id: s.id,
  staffId: s.staff_id,
  customerId: s.customer_id,
  reason: s.reason,
  status: s.status,
  startedAt: s.started_at.toISOString(),
  expiresAt: s.expires_at.toISOString(),
  endedAt: iso(s.ended_at),
  endReason: s.end_reason,
});

export type ImpersonationSession = ReturnType<typeof toSession>;

/** One impersonation session. */
export async function getSession(q: Queryable, tenantId: string, id: string): Promise<ImpersonationSession> {
  const [row] = await q.query<SessionRow>('select * from impersonation_sessions where tenant_id = $1 and id = $2', [
    tenantId,
    id,
  ]);
  if (!row) throw notFound('impersonation session');
  return toSession(row);
}

/** Impersonation sessions, newest first, by status or staff member. */
export async function listSessions(
  q: Queryable,
  tenantId: string,
  page: PageOptions & { status?: string; staffId?: string },
): Promise<ImpersonationSession[]> {
  const k = keyset('s', 5);
  const rows = await q.query<SessionRow>(
    `select * from impersonation_sessions s where s.tenant_id = $1 and ($3::text is null or s.status = $3) and ($4::text is null or s.staff_id = $4)
        and ${k.where} ${k.order} limit $2`,
    [tenantId, page.limit, page.status ?? null, page.staffId ?? null, ...keysetParams(page)],
  );
  return rows.map(toSession);
}

/**
 * An active staff member (owner, admin or support) starts acting as a customer, with a reason for
 * the audit trail; one session per staff member at a time, ending by itself after `minutes`.
 */
export async function startImpersonation(
  deps: CommerceDeps,
  tenantId: string,
  input: { staffId: string; customerId: string; reason: string; minutes?: number },
): Promise<ImpersonationSession> {
  const id = newId('imp');
  await deps.db.transaction(async (tx) => {
    const [staff] = await tx.query<{ status: string; role: string }>(
      'select status, role from staff_members where tenant_id = $1 and id = $2 for update',
      [tenantId, input.staffId],
    );
    if (!staff)
      throw unknownReference('staff_not_found', '/staffId', `No staff member ${input.staffId} in this sandbox.`);
    if (staff.status !== 'active') throw illegalTransition('staff', staff.status, 'impersonate with');
    if (!impersonatingRoles.has(staff.role)) {
      throw unknownReference(
        'staff_role_not_permitted',
        '/staffId',
        `A ${staff.role} cannot impersonate customers (owner, admin or support can).`,
      );
    }
    const [customer] = await tx.query('select 1 from customers where tenant_id = $1 and id = $2', [
      tenantId,
      input.customerId,
    ]);
    if (!customer)
      throw unknownReference('customer_not_found', '/customerId', `No customer ${input.customerId} in this sandbox.`);
    const [open] = await tx.query<{ id: string }>(
      `select id from impersonation_sessions where tenant_id = $1 and staff_id = $2 and status = 'active'`,
      [tenantId, input.staffId],
    );
    if (open)
      throw new ApiError(
        409,
        'impersonation_active',
        `${input.staffId} is already impersonating (${open.id}); end that session first.`,
        { extra: { sessionId: open.id } },
      );
    const now = deps.clock.now(tenantId);
    const expiresAt = new Date(now.getTime() + (input.minutes ?? 60) * 60_000);
    const [row] = await tx.query<SessionRow>(
      `insert into impersonation_sessions (tenant_id, id, staff_id, customer_id, reason, status, started_at, expires_at, created_at)
       values ($1, $2, $3, $4, $5, 'active', $6, $7, $6) returning *`,
      [tenantId, id, input.staffId, input.customerId, input.reason, now, expiresAt],
    );
    await audit(
      tx,
      tenantId,
      {
        actorId: input.staffId,
        action: 'impersonation.started',
        targetId: input.customerId,
        details: { sessionId: id, reason: input.reason },
      },
      now,
    );
    await deps.events.emit(tx, tenantId, 'impersonation.started', impersonationStartedData(row), { occurredAt: now });
    await scheduleAfterCommit(tx, deps, impersonationTimeoutJob, tenantId, id, expiresAt);
  });
  return getSession(deps.db, tenantId, id);
}

async function end(
  tx: Tx,
  deps: CommerceDeps,
  tenantId: string,
  id: string,
  reason: 'ended_by_staff' | 'timed_out',
  at: Date,
): Promise<void> {
  const [row] = await tx.query<SessionRow>(
    `update impersonation_sessions set status = 'ended', ended_at = $3, end_reason = $4 where tenant_id = $1 and id = $2 returning *`,
    [tenantId, id, at, reason],
  );
  await audit(
    tx,
    tenantId,
    {
      actorId: row.staff_id,
      action: 'impersonation.ended',
      targetId: row.customer_id,
      details: { sessionId: id, endReason: reason },
    },
    at,
  );
  await deps.events.emit(tx, tenantId, 'impersonation.ended', impersonationEndedData(row), { occurredAt: at });
}

/** active → ended by the staff member (impersonation.ended). */
export async function endImpersonation(
  deps: CommerceDeps,
  tenantId: string,
  id: string,
): Promise<ImpersonationSession> {
  await deps.db.transaction(async (tx) => {
    const [s] = await tx.query<{ status: string }>(
      'select status from impersonation_sessions where tenant_id = $1 and id = $2 for update',
      [tenantId, id],
    );
    if (!s) throw notFound('impersonation session');
    if (s.status !== 'active') throw illegalTransition('impersonation', s.status, 'end');
    await end(tx, deps, tenantId, id, 'ended_by_staff', deps.clock.now(tenantId));
    cancelAfterCommit(tx, deps, impersonationTimeoutJob, tenantId, id);
  });
  return getSession(deps.db, tenantId, id);
}

/** Sessions left open end by themselves at expires_at (endReason timed_out). */
export const impersonationTimeoutHandler = (deps: CommerceDeps) =>
  columnJobHandler(deps, {
    kind: impersonationTimeoutJob,
    table: 'impersonation_sessions',
    column: 'expires_at',
    pending: `status = 'active'`,
    run: (tx, tenantId, id, asOf) => end(tx, deps, tenantId, id, 'timed_out', asOf),
  });
