import { z } from 'zod';
import { isoOrNull, timestamp } from './common.ts';

export const staffRoles = ['owner', 'admin', 'support', 'viewer'] as const;
export const consentChannels = ['sms', 'email', 'call'] as const;
export const consentSources = ['web', 'mobile', 'store', 'call_center', 'email', 'sms', 'wet_signature'] as const;

export const StaffInvited = z.object({
  staffId: z.string(),
  email: z.string(),
  name: z.string(),
  role: z.enum(staffRoles),
  status: z.literal('invited'),
  invitedBy: z.string().nullable(),
  invitedAt: timestamp,
});
export const StaffAccepted = z.object({
  staffId: z.string(),
  email: z.string(),
  name: z.string(),
  role: z.enum(staffRoles),
  status: z.literal('active'),
  previousStatus: z.literal('invited'),
  acceptedAt: timestamp,
});

const session = {
  sessionId: z.string(),
  staffId: z.string(),
  customerId: z.string(),
  reason: z.string(),
  startedAt: timestamp,
};
export const ImpersonationStarted = z.object({ ...session, status: z.literal('active'), expiresAt: timestamp });
export const ImpersonationEnded = z.object({
  ...session,
  status: z.literal('ended'),
  previousStatus: z.literal('active'),
  endedAt: timestamp,
  endReason: z.enum(['ended_by_staff', 'timed_out']),
  durationSeconds: z.number().int(),
});

export const ConsentIysPushDue = z.object({
  consentId: z.string(),
  customerId: z.string(),
  channel: z.enum(consentChannels),
  status: z.enum(['granted', 'revoked']),
  dueAt: timestamp,
  iys: z
    .object({
      type: z.enum(['MESAJ', 'EPOSTA', 'ARAMA']),
      source: z.string(),
      recipient: z.string(),
      status: z.enum(['ONAY', 'RET']),
      consentDate: z.string().describe('YYYY-MM-DD HH:mm:ss, Türkiye time, as IYS expects'),
      recipientType: z.literal('BIREYSEL'),
    })
    .describe('The record to push to the İleti Yönetim Sistemi, in its own field names'),
});

export interface StaffEventRow {
  id: string;
  email: string;
  name: string;
  role: string;
  invited_by: string | null;
  invited_at: Date;
  accepted_at: Date | null;
}
export interface SessionEventRow {
  id: string;
  staff_id: string;
  customer_id: string;
  reason: string;
  started_at: Date;
  expires_at: Date;
  ended_at: Date | null;
  end_reason: string | null;
}
export interface ConsentEventRow {
  id: string;
  customer_id: string;
  channel: string;
  recipient: string;
  status: string;
  source: string;
  consent_at: Date;
}

export const staffInvitedData = (s: StaffEventRow): z.output<typeof StaffInvited> => ({
  staffId: s.id,
  email: s.email,
  name: s.name,
  role: s.role as 'support',
  status: 'invited',
  invitedBy: s.invited_by,
  invitedAt: s.invited_at.toISOString(),
});
export const staffAcceptedData = (s: StaffEventRow): z.output<typeof StaffAccepted> => ({
  staffId: s.id,
  email: s.email,
  name: s.name,
  role: s.role as 'support',
  status: 'active',
  previousStatus: 'invited',
  acceptedAt: isoOrNull(s.accepted_at) ?? '',
});

const sessionOf = (s: SessionEventRow) => ({
  sessionId: s.id,
  staffId: s.staff_id,
  customerId: s.customer_id,
  reason: s.reason,
  startedAt: s.started_at.toISOString(),
});
export const impersonationStartedData = (s: SessionEventRow): z.output<typeof ImpersonationStarted> => ({
  ...sessionOf(s),
  status: 'active',
  expiresAt: s.expires_at.toISOString(),
});
export const impersonationEndedData = (s: SessionEventRow): z.output<typeof ImpersonationEnded> => {
  const ended = s.ended_at ?? s.expires_at;
  return {
    ...sessionOf(s),
    status: 'ended',
    previousStatus: 'active',
    endedAt: ended.toISOString(),
    endReason: s.end_reason === 'timed_out' ? 'timed_out' : 'ended_by_staff',
    durationSeconds: Math.round((ended.getTime() - s.started_at.getTime()) / 1000),
  };
};

const iysTypes = { sms: 'MESAJ', email: 'EPOSTA', call: 'ARAMA' } as const;
const iysSources: Record<string, string> = {
  web: 'HS_WEB',
  mobile: 'HS_MOBIL',
  store: 'HS_FIZIKSEL_ORTAM',
  call_center: 'HS_CAGRI_MERKEZI',
  email: 'HS_EPOSTA',
  sms: 'HS_MESAJ',
  wet_signature: 'HS_ISLAK_IMZA',
};

/** IYS dates are Türkiye local time (UTC+3 all year since 2016) as YYYY-MM-DD HH:mm:ss. */
const iysDate = (d: Date) => new Date(d.getTime() + 3 * 3600_000).toISOString().slice(0, 19).replace('T', ' ');

export const consentPushDueData = (c: ConsentEventRow, dueAt: Date): z.output<typeof ConsentIysPushDue> => ({
  consentId: c.id,
  customerId: c.customer_id,
  channel: c.channel as 'sms',
  status: c.status as 'granted',
  dueAt: dueAt.toISOString(),
  iys: {
    type: iysTypes[c.channel as keyof typeof iysTypes],
    source: iysSources[c.source] ?? 'HS_WEB',
    recipient: c.recipient,
    status: c.status === 'granted' ? 'ONAY' : 'RET',
    consentDate: iysDate(c.consent_at),
    recipientType: 'BIREYSEL',
  },
});
