import type { Queryable } from '../../db/database.ts';
import { newId } from '../../shared/ids.ts';
import { notFound, validationFailed, unknownReference } from '../../shared/problem.ts';
import { keyset, keysetParams, type PageOptions } from '../commerce/deps.ts';
import type { DomainDeps } from '../deps.ts';
import { provinceNamed } from './provinces.ts';

export interface NewCustomer {
  name: string;
  email: string;
  phone?: string;
  address: { city: string; district: string; line?: string };
  companyId?: string;
  companyRole?: 'buyer' | 'approver';
  approvalLevel?: string;
}

interface CustomerRow {
  id: string;
  name: string;
  email: string;
  phone: string | null;
  city: string;
  district: string;
  address_line: string | null;
  company_id: string | null;
  company_role: string | null;
  approval_level: string | null;
  created_at: Date;
}

const toCustomer = (c: CustomerRow) => ({
  id: c.id,
  name: c.name,
  email: c.email,
  phone: c.phone,
  address: { city: c.city, district: c.district, line: c.address_line },
  type: c.company_id ? ('business' as const) : ('individual' as const),
  companyId: c.company_id,
  companyRole: c.company_role,
  approvalLevel: c.approval_level,
  createdAt: c.created_at.toISOString(),
});

export type Customer = ReturnType<typeof toCustomer>;

/** One customer. */
export async function getCustomer(q: Queryable, tenantId: string, id: string): Promise<Customer> {
  const [row] = await q.query<CustomerRow>('select * from customers where tenant_id = $1 and id = $2', [tenantId, id]);
  if (!row) throw notFound('customer');
  return toCustomer(row);
}

/** Customers, newest first, by company or city. */
export async function listCustomers(
  q: Queryable,
  tenantId: string,
  page: PageOptions & { companyId?: string; city?: string },
): Promise<Customer[]> {
  const k = keyset('c', 5);
  const rows = await q.query<CustomerRow>(
    `select * from customers c where c.tenant_id = $1 and ($3::text is null or c.company_id = $3) and ($4::text is null or c.city = $4)
        and ${k.where} ${k.order} limit $2`,
    [
      tenantId,
      page.limit,
      page.companyId ?? null,
      page.city ? (provinceNamed(page.city) ?? page.city) : null,
      ...keysetParams(page),
    ],
  );
  return rows.map(toCustomer);
}

/**
 * Creates a customer with a Turkish address (the city must be one of the 81 provinces and is
 * stored in its official spelling); a B2B customer belongs to a company as buyer or approver.
 */
export async function createCustomer(deps: DomainDeps, tenantId: string, input: NewCustomer): Promise<Customer> {
  const city = provinceNamed(input.address.city);
  if (!city) throw validationFailed([{ path: '/address/city', message: 'Not one of the 81 provinces of Türkiye.' }]);
  if (input.companyId) {
    const [company] = await deps.db.query<{ approval_levels: string[] }>(
      'select approval_levels from companies where tenant_id = $1 and id = $2',
      [tenantId, input.companyId],
    );
    if (!company)
      throw unknownReference('company_not_found', '/companyId', `No company ${input.companyId} in this sandbox.`);
    if (input.companyRole === 'approver' && !company.approval_levels.includes(input.approvalLevel!)) {
      throw unknownReference(
        'approval_level_unknown',
        '/approvalLevel',
        `${input.companyId} approves at ${company.approval_levels.join(', ')}.`,
      );
    }
  }
  const [row] = await deps.db.query<CustomerRow>(
    `insert into customers (tenant_id, id, name, email, phone, city, district, address_line, company_id, company_role, approval_level, created_at)
     values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12) returning *`,
    [
      tenantId,
      newId('cus'),
      input.name,
      input.email,
      input.phone ?? null,
      city,
      input.address.district,
      input.address.line ?? null,
      input.companyId ?? null,
      input.companyId ? input.companyRole : null,
      input.companyRole === 'approver' ? input.approvalLevel : null,
      deps.clock.now(tenantId),
    ],
  );
  return toCustomer(row);
}
