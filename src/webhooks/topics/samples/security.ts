import { savedReportDueData, type ReportEventRow, type RunEventRow } from '../data/reports.ts';
import {
  consentPushDueData,
  impersonationEndedData,
  impersonationStartedData,
  staffAcceptedData,
  staffInvitedData,
  type ConsentEventRow,
  type SessionEventRow,
  type StaffEventRow,
} from '../data/security.ts';
import { first, newest, type SampleBuilder } from './rows.ts';

/** Saved report and security samples: reports, staff, impersonation and IYS consent. */
export const securitySamples = {
  'saved_report.due': async (q, tenantId, now) => {
    const r = await newest<ReportEventRow>(
      q,
      tenantId,
      'saved_reports',
      'exists (select 1 from report_runs x where x.tenant_id = t.tenant_id and x.report_id = t.id)',
    );
    const run = await first<RunEventRow>(
      q,
      'select * from report_runs where tenant_id = $1 and report_id = $2 order by due_at desc, id desc limit 1',
      [tenantId, r.id],
    );
    const dueAt = r.next_due_at ?? now;
    return savedReportDueData(
      r,
      run ?? {
        id: 'rrn_sample',
        due_at: dueAt,
        period_start: new Date(dueAt.getTime() - 86_400_000),
        period_end: dueAt,
      },
    );
  },
  'impersonation.started': async (q, tenantId) =>
    impersonationStartedData(await newest<SessionEventRow>(q, tenantId, 'impersonation_sessions')),
  'impersonation.ended': async (q, tenantId, now) => {
    const s = await newest<SessionEventRow>(q, tenantId, 'impersonation_sessions', `t.status = 'ended'`);
    return impersonationEndedData({ ...s, ended_at: s.ended_at ?? now, end_reason: s.end_reason ?? 'ended_by_staff' });
  },
  'staff.invited': async (q, tenantId) =>
    staffInvitedData(await newest<StaffEventRow>(q, tenantId, 'staff_members', `t.status = 'invited'`)),
  'staff.accepted': async (q, tenantId, now) => {
    const s = await newest<StaffEventRow>(q, tenantId, 'staff_members', `t.status = 'active'`);
    return staffAcceptedData({ ...s, accepted_at: s.accepted_at ?? now });
  },
  'consent.iys.push_due': async (q, tenantId, now) => {
    const c = await newest<ConsentEventRow & { push_due_at: Date | null; last_pushed_at: Date | null }>(
      q,
      tenantId,
      'consents',
    );
    return consentPushDueData(c, c.push_due_at ?? c.last_pushed_at ?? now);
  },
} satisfies Record<string, SampleBuilder>;
