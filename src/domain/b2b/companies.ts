import type { Queryable } from '../../db/database.ts';
import { newId } from '../../shared/ids.ts';
import { toMajor } from '../../shared/money.ts';
import { notFound } from '../../shared/problem.ts';
import { keyset, keysetParams, type PageOptions } from '../commerce/deps.ts';
import type { DomainDeps } from '../deps.ts';

export interface NewCompany {
  name: string;
  taxNumber: string;
  approvalThresholdMinor: number;
  approvalLevels: string[];
  approvalTtlHours: number;
}

interface CompanyRow {
  id: string;
  name: string;
  tax_number: string;
  approval_threshold_minor: number;
  approval_levels: string[];
  approval_ttl_hours: number;
  created_at: Date;
}

const toCompany = (c: CompanyRow) => ({
  id: c.id,
  name: c.name,
  taxNumber: c.tax_number,
  approvalThreshold: toMajor(c.approval_threshold_minor),
  currency: 'TRY',
  approvalLevels: c.approval_levels,
  approvalTtlHours: c.approval_ttl_hours,
  createdAt: c.created_at.toISOString(),
});

export type Company = ReturnType<typeof toCompany>;

/** One company of the sandbox. */
export async function getCompany(q: Queryable, tenantId: string, id: string): Promise<Company> {
  const [row] = await q.query<CompanyRow>('select * from companies where tenant_id = $1 and id = $2', [tenantId, id]);
  if (!row) throw notFound('company');
  return toCompany(row);
}

/** Companies, newest first. */
export async function listCompanies(q: Queryable, tenantId: string, page: PageOptions): Promise<Company[]> {
  const k = keyset('c', 3);
  const rows = await q.query<CompanyRow>(
    `select * from companies c where c.tenant_id = $1 and ${k.where} ${k.order} limit $2`,
    [tenantId, page.limit, ...keysetParams(page)],
  );
  return rows.map(toCompany);
}

/** A B2B company: its buyers' orders above the threshold wait for approval at each level in turn. */
export async function createCompany(deps: DomainDeps, tenantId: string, input: NewCompany): Promise<Company> {
  const [row] = await deps.db.query<CompanyRow>(
    `insert into companies (tenant_id, id, name, tax_number, approval_threshold_minor, approval_levels, approval_ttl_hours, created_at)
     values ($1, $2, $3, $4, $5, $6, $7, $8) returning *`,
    [
      tenantId,
      newId('com'),
      input.name,
      input.taxNumber,
      input.approvalThresholdMinor,
      input.approvalLevels,
      input.approvalTtlHours,
      deps.clock.now(tenantId),
    ],
  );
  return toCompany(row);
}
