import type { Queryable } from '../../db/database.ts';
import { newId } from '../../shared/ids.ts';
import { keyset, keysetParams, type PageOptions } from '../commerce/deps.ts';

/** Appends to the sandbox's audit trail: who did what to whom (staff actions, impersonation, consent). */
export async function audit(
  q: Queryable,
  tenantId: string,
  entry: { actorId: string; action: string; targetId: string; details?: Record<string, unknown> },
  at: Date,
): Promise<void> {
  await q.query(
    'insert into audit_log (tenant_id, id, actor_id, action, target_id, details, created_at) values ($1, $2, $3, $4, $5, $6, $7)',
    [tenantId, newId('aud'), entry.actorId, entry.action, entry.targetId, JSON.stringify(entry.details ?? {}), at],
  );
}

/** The audit trail, newest first, by actor or target. */
export async function listAudit(
  q: Queryable,
  tenantId: string,
  page: PageOptions & { actorId?: string; targetId?: string },
) {
  const k = keyset('a', 5);
  const rows = await q.query<{
    id: string;
    actor_id: string;
    action: string;
    target_id: string;
    details: Record<string, unknown>;
    created_at: Date;
  }>(
    `select * from audit_log a where a.tenant_id = $1 and ($3::text is null or a.actor_id = $3) and ($4::text is null or a.target_id = $4)
        and ${k.where} ${k.order} limit $2`,
    [tenantId, page.limit, page.actorId ?? null, page.targetId ?? null, ...keysetParams(page)],
  );
  return rows.map((r) => ({
    id: r.id,
    actorId: r.actor_id,
    action: r.action,
    targetId: r.target_id,
    details: r.details,
    createdAt: r.created_at.toISOString(),
  }));
}
