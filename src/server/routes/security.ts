import { z } from 'zod';
import { listAudit } from '../../domain/security/audit.ts';
import { getConsent, listConsents, recordConsent } from '../../domain/security/consents.ts';
import { endImpersonation, getSession, listSessions, startImpersonation } from '../../domain/security/impersonation.ts';
import { acceptInvitation, getStaff, inviteStaff, listStaff, resendInvitation } from '../../domain/security/staff.ts';
import { consentChannels } from '../../webhooks/topics/data/security.ts';
import { tenantOf } from '../auth/principal.ts';
import { listQuery } from '../pagination.ts';
import { route } from '../route.ts';
import { idParam, listOf } from '../schemas/common.ts';
import {
  AcceptInvitationRequest,
  AuditEntry,
  Consent,
  ImpersonationSession,
  Invitation,
  InviteStaffRequest,
  RecordConsentRequest,
  StaffMember,
  StartImpersonationRequest,
} from '../schemas/security.ts';
import type { Services } from '../services.ts';
import { pageOf } from './paging.ts';

const tags = ['Security'];

const staffRoutes = (s: Services) => [
  route({
    method: 'post',
    path: '/api/v1/staff',
    operationId: 'inviteStaff',
    tags,
    access: 'sandbox',
    scope: 'security:write',
    errors: { 409: ['staff_email_taken'], 422: ['staff_not_found'] },
    summary: 'Invite a staff member (staff.invited); the invitation token is in this response only.',
    body: InviteStaffRequest,
    secretFields: ['invitationToken'],
    responses: { 201: Invitation },
    handler: async ({ body, principal }) => ({ status: 201, body: await inviteStaff(s, tenantOf(principal), body) }),
  }),
  route({
    method: 'get',
    path: '/api/v1/staff',
    operationId: 'listStaff',
    tags,
    access: 'sandbox',
    scope: 'security:read',
    summary: 'List staff members, newest first.',
    query: listQuery.extend({ status: z.enum(['invited', 'active']).optional() }),
    responses: { 200: listOf(StaffMember) },
    handler: async ({ query, principal, ctx }) => ({
      body: await pageOf(s, { query, principal, ctx }, (page) =>
        listStaff(s.db, tenantOf(principal), { ...query, ...page }),
      ),
    }),
  }),
  route({
    method: 'get',
    path: '/api/v1/staff/:id',
    operationId: 'getStaff',
    tags,
    access: 'sandbox',
    scope: 'security:read',
    summary: 'Get a staff member.',
    params: idParam,
    responses: { 200: StaffMember },
    handler: async ({ params, principal }) => ({ body: await getStaff(s.db, tenantOf(principal), params.id) }),
  }),
  route({
    method: 'post',
    path: '/api/v1/staff/:id/invitation',
    operationId: 'resendStaffInvitation',
    tags,
    access: 'sandbox',
    scope: 'security:write',
    errors: { 409: ['staff_active'] },
    summary: 'Send the invitation again with a new token (the old one stops working); staff.invited.',
    params: idParam,
    responses: { 200: Invitation },
    secretFields: ['invitationToken'],
    handler: async ({ params, principal }) => ({ body: await resendInvitation(s, tenantOf(principal), params.id) }),
  }),
  route({
    method: 'post',
    path: '/api/v1/staff/:id/accept',
    operationId: 'acceptStaffInvitation',
    tags,
    access: 'sandbox',
    scope: 'security:write',
    errors: { 409: ['staff_active'], 422: ['invalid_invitation_token'] },
    summary: 'invited → active with the invitation token (staff.accepted).',
    params: idParam,
    body: AcceptInvitationRequest,
    responses: { 200: StaffMember },
    handler: async ({ params, body, principal }) => ({
      body: await acceptInvitation(s, tenantOf(principal), params.id, body.token),
    }),
  }),
];

const impersonationRoutes = (s: Services) => [
  route({
    method: 'post',
    path: '/api/v1/impersonations',
    operationId: 'startImpersonation',
    tags,
    access: 'sandbox',
    scope: 'security:write',
    errors: {
      409: ['staff_invited', 'impersonation_active'],
      422: ['staff_not_found', 'staff_role_not_permitted', 'customer_not_found'],
    },
    summary: 'A staff member starts acting as a customer, with a reason for the audit trail (impersonation.started).',
    body: StartImpersonationRequest,
    responses: { 201: ImpersonationSession },
    handler: async ({ body, principal }) => ({
      status: 201,
      body: await startImpersonation(s, tenantOf(principal), body),
    }),
  }),
  route({
    method: 'get',
    path: '/api/v1/impersonations',
    operationId: 'listImpersonations',
    tags,
    access: 'sandbox',
    scope: 'security:read',
    summary: 'Impersonation sessions, newest first.',
    query: listQuery.extend({
      status: z.enum(['active', 'ended']).optional(),
      staffId: z.string().max(100).optional(),
    }),
    responses: { 200: listOf(ImpersonationSession) },
    handler: async ({ query, principal, ctx }) => ({
      body: await pageOf(s, { query, principal, ctx }, (page) =>
        listSessions(s.db, tenantOf(principal), { ...query, ...page }),
      ),
    }),
  }),
  route({
    method: 'get',
    path: '/api/v1/impersonations/:id',
    operationId: 'getImpersonation',
    tags,
    access: 'sandbox',
    scope: 'security:read',
    summary: 'Get an impersonation session.',
    params: idParam,
    responses: { 200: ImpersonationSession },
    handler: async ({ params, principal }) => ({ body: await getSession(s.db, tenantOf(principal), params.id) }),
  }),
  route({
    method: 'post',
    path: '/api/v1/impersonations/:id/end',
    operationId: 'endImpersonation',
    tags,
    access: 'sandbox',
    scope: 'security:write',
    errors: { 409: ['impersonation_ended'] },
    summary: 'End a session (impersonation.ended); unended sessions time out on the sandbox clock.',
    params: idParam,
    responses: { 200: ImpersonationSession },
    handler: async ({ params, principal }) => ({ body: await endImpersonation(s, tenantOf(principal), params.id) }),
  }),
  route({
    method: 'get',
    path: '/api/v1/audit-log',
    operationId: 'listAuditLog',
    tags,
    access: 'sandbox',
    scope: 'security:read',
    summary: 'The audit trail: staff invitations, impersonations and consent changes, newest first.',
    query: listQuery.extend({ actorId: z.string().max(100).optional(), targetId: z.string().max(100).optional() }),
    responses: { 200: listOf(AuditEntry) },
    handler: async ({ query, principal, ctx }) => ({
      body: await pageOf(s, { query, principal, ctx }, (page) =>
        listAudit(s.db, tenantOf(principal), { ...query, ...page }),
      ),
    }),
  }),
];

const consentRoutes = (s: Services) => [
  route({
    method: 'post',
    path: '/api/v1/consents',
    operationId: 'recordConsent',
    tags,
    access: 'sandbox',
    scope: 'security:write',
    errors: { 422: ['customer_not_found', 'customer_has_no_phone'] },
    summary:
      "Record a customer's commercial-message consent (IYS); the change queues a push that falls due 15 min later (consent.iys.push_due).",
    body: RecordConsentRequest,
    responses: { 201: Consent, 200: Consent },
    handler: async ({ body, principal }) => {
      const { consent, created } = await recordConsent(s, tenantOf(principal), body);
      return { status: created ? 201 : 200, body: consent };
    },
  }),
  route({
    method: 'get',
    path: '/api/v1/consents',
    operationId: 'listConsents',
    tags,
    access: 'sandbox',
    scope: 'security:read',
    summary: 'Consent records, newest first.',
    query: listQuery.extend({
      customerId: z.string().max(100).optional(),
      channel: z.enum(consentChannels).optional(),
    }),
    responses: { 200: listOf(Consent) },
    handler: async ({ query, principal, ctx }) => ({
      body: await pageOf(s, { query, principal, ctx }, (page) =>
        listConsents(s.db, tenantOf(principal), { ...query, ...page }),
      ),
    }),
  }),
  route({
    method: 'get',
    path: '/api/v1/consents/:id',
    operationId: 'getConsent',
    tags,
    access: 'sandbox',
    scope: 'security:read',
    summary: 'Get a consent record.',
    params: idParam,
    responses: { 200: Consent },
    handler: async ({ params, principal }) => ({ body: await getConsent(s.db, tenantOf(principal), params.id) }),
  }),
];

/** Staff, impersonation with its audit trail, and IYS consent. */
export const securityRoutes = (s: Services) => [...staffRoutes(s), ...impersonationRoutes(s), ...consentRoutes(s)];
