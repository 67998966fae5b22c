import { z } from 'zod';
import { consentChannels, consentSources, staffRoles } from '../../webhooks/topics/data/security.ts';
import { text, Timestamp } from './common.ts';

export const InviteStaffRequest = z
  .object({
    email: z.string().trim().max(254).email('Must be an email address.'),
    name: text(200),
    role: z.enum(staffRoles),
    invitedBy: z.string().min(1).max(100).optional().describe('The active staff member who invites'),
  })
  .strict()
  .meta({ id: 'InviteStaffRequest' });

export const AcceptInvitationRequest = z
  .object({ token: z.string().min(1).max(200) })
  .strict()
  .meta({ id: 'AcceptInvitationRequest' });

export const StaffMember = z
  .object({
    id: z.string(),
    email: z.string(),
    name: z.string(),
    role: z.enum(staffRoles),
    status: z.enum(['invited', 'active']),
    invitedBy: z.string().nullable(),
    invitedAt: Timestamp,
    acceptedAt: Timestamp.nullable(),
    createdAt: Timestamp,
  })
  .meta({ id: 'StaffMember' });

export const Invitation = StaffMember.extend({
  invitationToken: z
    .string()
    .optional()
    .describe(
      'Shown once; the invitee accepts with it. Absent from an Idempotency-Key replay (see its Idempotent-Omitted header): it is never stored',
    ),
}).meta({ id: 'StaffInvitation' });

export const StartImpersonationRequest = z
  .object({
    staffId: z.string().min(1).max(100),
    customerId: z.string().min(1).max(100),
    reason: text(500).describe('Why: kept in the audit trail'),
    minutes: z.number().int().min(5).max(240).optional().describe('Ends by itself after this long (default 60)'),
  })
  .strict()
  .meta({ id: 'StartImpersonationRequest' });

export const ImpersonationSession = z
  .object({
    id: z.string(),
    staffId: z.string(),
    customerId: z.string(),
    reason: z.string(),
    status: z.enum(['active', 'ended']),
    startedAt: Timestamp,
    expiresAt: Timestamp,
    endedAt: Timestamp.nullable(),
    endReason: z.enum(['ended_by_staff', 'timed_out']).nullable(),
  })
  .meta({ id: 'ImpersonationSession' });

export const AuditEntry = z
  .object({
    id: z.string(),
    actorId: z.string(),
    action: z.string(),
    targetId: z.string(),
    details: z.record(z.string(), z.unknown()),
    createdAt: Timestamp,
  })
  .meta({ id: 'AuditEntry' });

export const RecordConsentRequest = z
  .object({
    customerId: z.string().min(1).max(100),
    channel: z.enum(consentChannels),
    status: z.enum(['granted', 'revoked']),
    source: z
      .enum(consentSources)
      .default('web')
      .describe('Where the customer decided; becomes the IYS source (HS_WEB …)'),
  })
  .strict()
  .meta({ id: 'RecordConsentRequest' });

export const Consent = z
  .object({
    id: z.string(),
    customerId: z.string(),
    channel: z.enum(consentChannels),
    recipient: z.string(),
    status: z.enum(['granted', 'revoked']),
    source: z.enum(consentSources),
    consentAt: Timestamp,
    iysPush: z.object({
      status: z.enum(['queued', 'idle']),
      dueAt: Timestamp.nullable(),
      lastDueAt: Timestamp.nullable(),
    }),
    createdAt: Timestamp,
    updatedAt: Timestamp,
  })
  .meta({ id: 'Consent' });
