// Seed rows for the commerce areas beyond orders: companies and B2B roles, approvals, quotes,
// marketplace offers and buyboxes, refunds, payouts, saved reports, staff, impersonation and
// consent. Nothing seeded owes a due job (no pending expiry, retry or report), because seeding
// schedules nothing: seeded reports are paused and seeded approvals and quotes are decided.
import { rankOffers, eligible } from '../../src/domain/buybox/rank.ts';

type Row = Record<string, any>;

export interface BaseRows {
  vendors: Row[];
  products: Row[];
  variants: Row[];
  customers: Row[];
  orders: Row[];
  items: Row[];
  payments: Row[];
}

const hour = 3600_000;
const iso = (ms: number) => new Date(ms).toISOString();
const at = (value: string, plusMs: number) => iso(Date.parse(value) + plusMs);
const pad = (n: number) => String(n).padStart(4, '0');

export const companies = [
  {
    id: 'com_0001',
    name: 'Anadolu Yapı Market A.Ş.',
    taxNumber: '1234567890',
    approvalThresholdMinor: 500_000,
    approvalLevels: ['manager', 'finance'],
    approvalTtlHours: 72,
  },
  {
    id: 'com_0002',
    name: 'Ege Otel Tedarik Ltd. Şti.',
    taxNumber: '9876543210',
    approvalThresholdMinor: 250_000,
    approvalLevels: ['manager'],
    approvalTtlHours: 48,
  },
];

/** B2B roles of some seeded customers: customer id → company, role, approval level. */
const b2bRoles: Record<string, [string, 'buyer' | 'approver', string | null]> = {
  cus_0041: ['com_0001', 'buyer', null],
  cus_0042: ['com_0001', 'buyer', null],
  cus_0043: ['com_0001', 'approver', 'manager'],
  cus_0044: ['com_0001', 'approver', 'finance'],
  cus_0046: ['com_0002', 'buyer', null],
  cus_0047: ['com_0002', 'approver', 'manager'],
};

const vendorDetails: Record<string, { email: string; taxNumber: string; iban: string; standing: number }> = {
  ven_0001: {
    email: 'satis@anadoluzanaat.example.com.tr',
    taxNumber: '1112223334',
    iban: 'TR330006100519786457841326',
    standing: 92,
  },
  ven_0002: {
    email: 'siparis@egeorganik.example.com.tr',
    taxNumber: '5556667778',
    iban: 'TR200006200000006298211234',
    standing: 78,
  },
  ven_0003: {
    email: 'basvuru@bogazicielektronik.example.com.tr',
    taxNumber: '9990001112',
    iban: 'TR360004600000001234567890',
    standing: 50,
  },
};

/** The commerce tables, and the commerce columns of the base tables, from the base rows. */
export function commerceSeed(base: BaseRows, rand: () => number): Record<string, Row[]> {
  const int = (min: number, max: number) => min + Math.floor(rand() * (max - min + 1));
  const companyOf = new Map(companies.map((c) => [c.id, c]));

  const vendors: Row[] = base.vendors.map((v) => ({
    ...v,
    ...vendorDetails[v.id],
    statusReason: null,
    updatedAt: v.createdAt,
    decidedAt: v.status === 'applied' ? null : at(v.createdAt, 2 * 24 * hour),
  }));
  const products: Row[] = base.products.map((p) => ({
    ...p,
    publishedAt: p.status === 'published' ? p.createdAt : null,
    archivedAt: p.status === 'archived' ? at(p.createdAt, 30 * 24 * hour) : null,
  }));
  const customers: Row[] = base.customers.map((c) => {
    const [companyId, companyRole, approvalLevel] = b2bRoles[c.id] ?? [null, null, null];
    return { ...c, companyId, companyRole, approvalLevel };
  });
  const customerById = new Map(customers.map((c) => [c.id, c]));

  // Approved requests for the seeded B2B orders above their company's threshold.
  const approvalRequests: Row[] = [];
  const approvalDecisions: Row[] = [];
  for (const o of base.orders) {
    const buyer = customerById.get(o.customerId)!;
    const company = buyer.companyRole === 'buyer' ? companyOf.get(buyer.companyId) : undefined;
    if (!company || o.totalMinor <= company.approvalThresholdMinor || o.status === 'cancelled') continue;
    const id = `apr_${pad(approvalRequests.length + 1)}`;
    const approvers = customers.filter((c) => c.companyId === company.id && c.companyRole === 'approver');
    company.approvalLevels.forEach((level, position) => {
      approvalDecisions.push({
        requestId: id,
        position,
        level,
        approverId: approvers.find((a) => a.approvalLevel === level)!.id,
        decision: 'approved',
        note: null,
        decidedAt: at(o.createdAt, -(company.approvalLevels.length - position) * 10 * 60_000),
      });
    });
    approvalRequests.push({
      id,
      orderId: o.id,
      companyId: company.id,
      buyerId: buyer.id,
      status: 'approved',
      levels: company.approvalLevels,
      levelIndex: 0,
      amountMinor: o.totalMinor,
      currency: 'TRY',
      thresholdMinor: company.approvalThresholdMinor,
      expiresAt: at(o.createdAt, company.approvalTtlHours * hour),
      decidedAt: at(o.createdAt, -10 * 60_000),
      createdAt: at(o.createdAt, -hour),
      updatedAt: at(o.createdAt, -10 * 60_000),
    });
  }

  // Quotes in every settled state; the converted one is the quote behind an existing order.
  const quotes: Row[] = [];
  const quoteItems: Row[] = [];
  const published = new Set(products.filter((p) => p.status === 'published').map((p) => p.id));
  const quotable = base.variants.filter((v) => published.has(v.productId));
  const productName = new Map(products.map((p) => [p.id, p.name]));
  const converted = base.orders.find((o) => o.customerId === 'cus_0042' && o.status === 'paid')!;
  const plans = [
    { status: 'draft', customerId: 'cus_0041' },
    { status: 'accepted', customerId: 'cus_0042' },
    { status: 'rejected', customerId: 'cus_0046' },
    { status: 'expired', customerId: 'cus_0041' },
    { status: 'converted', customerId: converted.customerId },
  ];
  plans.forEach((plan, n) => {
    const id = `quo_${pad(n + 1)}`;
    const createdAt =
      plan.status === 'converted'
        ? at(converted.createdAt, -3 * 24 * hour)
        : iso(Date.parse('2026-02-02T10:00:00Z') + n * 5 * 24 * hour);
    const lines =
      plan.status === 'converted'
        ? base.items
            .filter((i) => i.orderId === converted.id)
            .map((i) => ({
              variantId: i.variantId,
              productId: i.productId,
              name: i.name,
              quantity: i.quantity,
              unit: i.unitPriceMinor,
            }))
        : Array.from({ length: int(1, 3) }, (_, k) => quotable[(n * 17 + k * 29) % quotable.length]).map((v) => ({
            variantId: v.id,
            productId: v.productId,
            name: `${productName.get(v.productId)} (${v.name})`,
            quantity: int(5, 40),
            unit: Math.round((v.priceMinor * 0.9) / 10) * 10,
          }));
    lines.forEach((l, position) =>
      quoteItems.push({
        quoteId: id,
        position,
        variantId: l.variantId,
        productId: l.productId,
        name: l.name,
        quantity: l.quantity,
        unitPriceMinor: l.unit,
        lineTotalMinor: l.unit * l.quantity,
      }),
    );
    const customer = customerById.get(plan.customerId)!;
    const sent = plan.status === 'draft' ? null : at(createdAt, hour);
    quotes.push({
      id,
      customerId: plan.customerId,
      status: plan.status,
      totalMinor: lines.reduce((s, l) => s + l.unit * l.quantity, 0),
      currency: 'TRY',
      city: customer.city,
      district: customer.district,
      note: 'Toplu alım için özel fiyat teklifi.',
      validDays: 14,
      sentAt: sent,
      expiresAt: sent && at(sent, 14 * 24 * hour),
      decidedAt:
        plan.status === 'draft'
          ? null
          : plan.status === 'expired'
            ? at(sent!, 14 * 24 * hour)
            : at(createdAt, 24 * hour),
      decisionReason: plan.status === 'rejected' ? 'Bütçe onayı alınamadı.' : null,
      orderId: plan.status === 'converted' ? converted.id : null,
      createdAt,
      updatedAt:
        plan.status === 'draft'
          ? createdAt
          : plan.status === 'converted'
            ? converted.createdAt
            : at(createdAt, 24 * hour),
    });
  });

  // Offers of the two approved vendors, with overlapping variants so buyboxes are contested.
  const vendorOffers: Row[] = [];
  const orderable = base.variants.filter((v) => published.has(v.productId) && v.stock > 0);
  for (const [k, vendorId] of ['ven_0001', 'ven_0002'].entries()) {
    for (let n = 0; n < 16; n++) {
      const v = orderable[(n * 7 + (n < 8 ? 0 : k * 5)) % orderable.length];
      vendorOffers.push({
        id: `ofr_${pad(vendorOffers.length + 1)}`,
        vendorId,
        variantId: v.id,
        priceMinor: Math.round((v.priceMinor * (0.85 + rand() * 0.2)) / 10) * 10,
        shippingMinor: [0, 2990, 4990][int(0, 2)],
        stock: int(0, 120),
        createdAt: at(vendors[k].createdAt, (3 + n) * 24 * hour),
        updatedAt: at(vendors[k].createdAt, (3 + n) * 24 * hour),
      });
    }
  }
  const vendorById = new Map(vendors.map((v) => [v.id, v]));
  const buyboxWinners: Row[] = [];
  for (const variantId of [...new Set(vendorOffers.map((o) => o.variantId))]) {
    const ranked = rankOffers(
      vendorOffers
        .filter((o) => o.variantId === variantId)
        .map((o) => ({
          offerId: o.id as string,
          vendorId: o.vendorId as string,
          vendorStatus: vendorById.get(o.vendorId)!.status as string,
          vendorStanding: vendorById.get(o.vendorId)!.standing as number,
          priceMinor: o.priceMinor as number,
          shippingMinor: o.shippingMinor as number,
          stock: o.stock as number,
          createdAt: o.createdAt as string,
        })),
    );
    const w = ranked.find(eligible);
    if (w)
      buyboxWinners.push({
        variantId,
        offerId: w.offerId,
        vendorId: w.vendorId,
        priceMinor: w.priceMinor,
        shippingMinor: w.shippingMinor,
        stock: w.stock,
        updatedAt: w.createdAt,
      });
  }

  // Refunds on two late payments: one partial, one full.
  const refunds: Row[] = [];
  const payments: Row[] = base.payments.map((p) => ({
    ...p,
    provider: p.cardBrand === 'troy' ? 'iyzico' : 'stripe',
    threeDSecure: false,
    challengeToken: null,
    returnUrl: null,
    refundBehavior: 'succeeds',
    capturedAt: p.createdAt,
  }));
  for (const [index, share] of [
    [120, 0.5],
    [140, 1],
  ] as const) {
    const p = payments[index];
    const amount = share === 1 ? p.amountMinor : Math.round((p.amountMinor * share) / 100) * 100;
    refunds.push({
      id: `re_${pad(refunds.length + 1)}`,
      paymentId: p.id,
      amountMinor: amount,
      currency: 'TRY',
      status: 'succeeded',
      reason: 'requested_by_customer',
      failureReason: null,
      createdAt: at(p.createdAt, 3 * 24 * hour),
    });
    Object.assign(p, {
      refundedMinor: amount,
      status: share === 1 ? 'refunded' : 'partially_refunded',
      updatedAt: at(p.createdAt, 3 * 24 * hour),
    });
  }

  // ven_0002 sells its own products (ven_0001 only makes offers): January paid out, February calculated and ready to
  // pay.
  const payouts: Row[] = [];
  const payoutAttempts: Row[] = [];
  const vendorOfProduct = new Map(products.map((p) => [p.id, p.vendorId]));
  for (const [vendorId, start, end, paid] of [
    ['ven_0002', '2026-01-01', '2026-01-31', true],
    ['ven_0002', '2026-02-01', '2026-02-28', false],
  ] as const) {
    const since = Date.parse(`${start}T00:00:00Z`);
    const until = Date.parse(`${end}T00:00:00Z`) + 24 * hour;
    const captured = payments.filter((p) => Date.parse(p.capturedAt) >= since && Date.parse(p.capturedAt) < until);
    const lines = captured.map((p) =>
      base.items
        .filter((i) => i.orderId === p.orderId && vendorOfProduct.get(i.productId) === vendorId)
        .reduce((s, i) => s + i.lineTotalMinor, 0),
    );
    const gross = lines.reduce((s, x) => s + x, 0);
    const commission = Math.floor((gross * vendorById.get(vendorId)!.commissionBps + 5000) / 10000);
    const id = `po_${pad(payouts.length + 1)}`;
    const createdAt = iso(until + 2 * 24 * hour);
    payouts.push({
      id,
      vendorId,
      periodStart: start,
      periodEnd: end,
      status: paid ? 'paid' : 'calculated',
      grossMinor: gross,
      commissionMinor: commission,
      refundsMinor: 0,
      amountMinor: gross - commission,
      currency: 'TRY',
      orderCount: lines.filter((x) => x > 0).length,
      attemptCount: paid ? 1 : 0,
      nextAttemptAt: null,
      lastFailureCode: null,
      paidAt: paid ? at(createdAt, hour) : null,
      createdAt,
      updatedAt: paid ? at(createdAt, hour) : createdAt,
    });
    if (paid)
      payoutAttempts.push({
        payoutId: id,
        number: 1,
        ibanLast4: vendorById.get(vendorId)!.iban.slice(-4),
        outcome: 'paid',
        failureCode: null,
        attemptedAt: at(createdAt, hour),
      });
  }

  // Saved reports, paused (a seeded schedule would owe a job); each with one past run.
  const savedReports = [
    { id: 'rep_0001', name: 'Günlük satış özeti', kind: 'sales_summary', schedule: 'daily' },
    { id: 'rep_0002', name: 'Haftalık en çok satanlar', kind: 'top_products', schedule: 'weekly' },
  ].map((r) => ({
    ...r,
    active: false,
    nextDueAt: null,
    lastRunAt: '2026-02-02T06:00:00.000Z',
    createdAt: '2026-01-10T09:00:00.000Z',
    updatedAt: '2026-02-02T06:00:00.000Z',
  }));
  const dayOrders = base.orders.filter(
    (o) => o.createdAt >= '2026-02-01T06:00:00.000Z' && o.createdAt < '2026-02-02T06:00:00.000Z',
  );
  const revenue = dayOrders.filter((o) => o.status !== 'cancelled').reduce((s, o) => s + o.totalMinor, 0);
  const reportRuns = [
    {
      id: 'rrn_0001',
      reportId: 'rep_0001',
      dueAt: '2026-02-02T06:00:00.000Z',
      periodStart: '2026-02-01T06:00:00.000Z',
      periodEnd: '2026-02-02T06:00:00.000Z',
      result: { orders: dayOrders.length, revenue: revenue / 100, currency: 'TRY' },
      createdAt: '2026-02-02T06:00:00.000Z',
    },
  ];

  const staffMembers = [
    {
      id: 'stf_0001',
      email: 'defne.aksoy@example.com.tr',
      name: 'Defne Aksoy',
      role: 'owner',
      status: 'active',
      invitedBy: null,
    },
    {
      id: 'stf_0002',
      email: 'kaan.tuna@example.com.tr',
      name: 'Kaan Tuna',
      role: 'support',
      status: 'active',
      invitedBy: 'stf_0001',
    },
    {
      id: 'stf_0003',
      email: 'ece.balci@example.com.tr',
      name: 'Ece Balcı',
      role: 'viewer',
      status: 'active',
      invitedBy: 'stf_0001',
    },
    {
      id: 'stf_0004',
      email: 'mert.yalcin@example.com.tr',
      name: 'Mert Yalçın',
      role: 'admin',
      status: 'invited',
      invitedBy: 'stf_0001',
    },
  ].map((s, n) => {
    const invitedAt = iso(Date.parse('2026-01-02T08:00:00Z') + n * 24 * hour);
    return {
      ...s,
      invitationHash: null,
      invitedAt,
      acceptedAt: s.status === 'active' ? at(invitedAt, 2 * hour) : null,
      createdAt: invitedAt,
    };
  });
  const impersonationSessions = [
    {
      id: 'imp_0001',
      staffId: 'stf_0002',
      customerId: 'cus_0007',
      reason: 'Müşteri teslimat adresini güncelleyemediğini bildirdi.',
      status: 'ended',
      startedAt: '2026-02-10T11:00:00.000Z',
      expiresAt: '2026-02-10T12:00:00.000Z',
      endedAt: '2026-02-10T11:12:00.000Z',
      endReason: 'ended_by_staff',
      createdAt: '2026-02-10T11:00:00.000Z',
    },
  ];
  const consents = customers.slice(0, 10).flatMap((c, n) =>
    (['sms', 'email'] as const).map((channel) => {
      const consentAt = iso(Date.parse(c.createdAt) + hour);
      return {
        id: `cns_${pad(n * 2 + (channel === 'sms' ? 1 : 2))}`,
        customerId: c.id,
        channel,
        recipient: channel === 'email' ? c.email : c.phone.replace(/[^\d+]/g, ''),
        status: (n + (channel === 'sms' ? 0 : 1)) % 4 === 3 ? 'revoked' : 'granted',
        source: channel === 'sms' ? 'mobile' : 'web',
        consentAt,
        pushDueAt: null,
        lastPushedAt: at(consentAt, 15 * 60_000),
        createdAt: consentAt,
        updatedAt: consentAt,
      };
    }),
  );
  const auditLog = [
    ...staffMembers
      .filter((s) => s.invitedBy)
      .map((s, n) => ({
        id: `aud_${pad(n + 1)}`,
        actorId: s.invitedBy,
        action: 'staff.invited',
        targetId: s.id,
        details: { role: s.role },
        createdAt: s.invitedAt,
      })),
    ...impersonationSessions.flatMap((s, n) => [
      {
        id: `aud_${pad(10 + 2 * n)}`,
        actorId: s.staffId,
        action: 'impersonation.started',
        targetId: s.customerId,
        details: { sessionId: s.id, reason: s.reason },
        createdAt: s.startedAt,
      },
      {
        id: `aud_${pad(11 + 2 * n)}`,
        actorId: s.staffId,
        action: 'impersonation.ended',
        targetId: s.customerId,
        details: { sessionId: s.id, endReason: s.endReason },
        createdAt: s.endedAt,
      },
    ]),
  ];

  return {
    vendors,
    products,
    customers,
    payments,
    companies: companies.map((c) => ({ ...c, createdAt: '2025-12-01T09:00:00.000Z' })),
    approval_requests: approvalRequests,
    approval_decisions: approvalDecisions,
    quotes,
    quote_items: quoteItems,
    refunds,
    vendor_offers: vendorOffers,
    buybox_winners: buyboxWinners,
    payouts,
    payout_attempts: payoutAttempts,
    saved_reports: savedReports,
    report_runs: reportRuns,
    staff_members: staffMembers,
    impersonation_sessions: impersonationSessions,
    audit_log: auditLog,
    consents,
  };
}
