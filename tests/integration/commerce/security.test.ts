import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createSandbox, problem, useEngine } from '../../helpers/engine.ts';
import { advance, eventTopics, lastEvent, ok, paths } from './helpers.ts';

const engine = useEngine();

test('staff: invite (staff.invited, token shown once) → accept with the token (staff.accepted); resend replaces the token', async () => {
  const sb = await createSandbox(engine.url);
  const invited = ok(
    await sb.api('/api/v1/staff', {
      body: { email: 'Selin.Kara@example.com.tr', name: 'Selin Kara', role: 'support', invitedBy: 'stf_0001' },
    }),
    201,
  );
  assert.match(invited.id, /^stf_/);
  assert.match(invited.invitationToken, /^inv_\w{32}$/);
  assert.equal(invited.status, 'invited');
  const e = await lastEvent(sb, 'staff.invited');
  assert.deepEqual([e.data.staffId, e.data.invitedBy, e.data.role], [invited.id, 'stf_0001', 'support']);
  assert.ok(!JSON.stringify(e.data).includes(invited.invitationToken), 'the token never travels in a webhook');
  assert.equal(ok(await sb.api(`/api/v1/staff/${invited.id}`)).invitationToken, undefined, 'nor in a read');

  const wrong = problem(
    await sb.api(`/api/v1/staff/${invited.id}/accept`, { body: { token: 'inv_nope' } }),
    422,
    'invalid_invitation_token',
  );
  assert.deepEqual(paths(wrong), ['/token']);
  const resent = ok(await sb.api(`/api/v1/staff/${invited.id}/invitation`, { method: 'POST' }));
  assert.notEqual(resent.invitationToken, invited.invitationToken);
  problem(
    await sb.api(`/api/v1/staff/${invited.id}/accept`, { body: { token: invited.invitationToken } }),
    422,
    'invalid_invitation_token',
  );
  const active = ok(await sb.api(`/api/v1/staff/${invited.id}/accept`, { body: { token: resent.invitationToken } }));
  assert.deepEqual([active.status, Boolean(active.acceptedAt)], ['active', true]);
  assert.equal((await lastEvent(sb, 'staff.accepted')).data.previousStatus, 'invited');
  problem(
    await sb.api(`/api/v1/staff/${invited.id}/accept`, { body: { token: resent.invitationToken } }),
    409,
    'staff_active',
  );
  problem(await sb.api(`/api/v1/staff/${invited.id}/invitation`, { method: 'POST' }), 409, 'staff_active');

  problem(
    await sb.api('/api/v1/staff', { body: { email: 'selin.kara@EXAMPLE.com.tr', name: 'Selin', role: 'viewer' } }),
    409,
    'staff_email_taken',
  );
  problem(
    await sb.api('/api/v1/staff', {
      body: { email: 'x@example.com.tr', name: 'X', role: 'viewer', invitedBy: 'stf_0004' },
    }),
    422,
    'staff_not_found',
  );
  assert.deepEqual(
    paths(
      problem(
        await sb.api('/api/v1/staff', { body: { email: 'x', name: 'X', role: 'god' } }),
        422,
        'validation_failed',
      ),
    ).sort(),
    ['/email', '/role'],
  );
});

test('impersonation: support starts with a reason, ends it or it times out; every step is in the audit trail', async () => {
  const sb = await createSandbox(engine.url);
  const s = ok(
    await sb.api('/api/v1/impersonations', {
      body: { staffId: 'stf_0002', customerId: 'cus_0001', reason: 'Sepet hatası incelemesi' },
    }),
    201,
  );
  assert.deepEqual(
    [s.status, s.reason, Date.parse(s.expiresAt) - Date.parse(s.startedAt)],
    ['active', 'Sepet hatası incelemesi', 3600_000],
  );
  assert.equal((await lastEvent(sb, 'impersonation.started')).data.sessionId, s.id);
  const busy = problem(
    await sb.api('/api/v1/impersonations', { body: { staffId: 'stf_0002', customerId: 'cus_0002', reason: 'İkinci' } }),
    409,
    'impersonation_active',
  );
  assert.equal(busy.sessionId, s.id);
  const ended = ok(await sb.api(`/api/v1/impersonations/${s.id}/end`, { method: 'POST' }));
  assert.deepEqual([ended.status, ended.endReason], ['ended', 'ended_by_staff']);
  const e = await lastEvent(sb, 'impersonation.ended');
  assert.deepEqual([e.data.endReason, e.data.previousStatus], ['ended_by_staff', 'active']);
  problem(await sb.api(`/api/v1/impersonations/${s.id}/end`, { method: 'POST' }), 409, 'impersonation_ended');

  const short = ok(
    await sb.api('/api/v1/impersonations', {
      body: { staffId: 'stf_0001', customerId: 'cus_0003', reason: 'İade', minutes: 5 },
    }),
    201,
  );
  await advance(sb, 5 * 60 + 5);
  const timedOut = ok(await sb.api(`/api/v1/impersonations/${short.id}`));
  assert.deepEqual([timedOut.status, timedOut.endReason, timedOut.endedAt], ['ended', 'timed_out', short.expiresAt]);
  assert.equal((await lastEvent(sb, 'impersonation.ended')).data.durationSeconds, 300);

  const audit = ok(await sb.api('/api/v1/audit-log?actorId=stf_0002&limit=100')).data.map(
    (x: any) => `${x.action} ${x.targetId}`,
  );
  assert.deepEqual(audit.slice(0, 2), ['impersonation.ended cus_0001', 'impersonation.started cus_0001']);
});

test('impersonation refusals: viewers, invited staff, unknown customers; another sandbox sees 404', async () => {
  const [a, b] = [await createSandbox(engine.url), await createSandbox(engine.url)];
  const body = (staffId: string, customerId = 'cus_0001') => ({ body: { staffId, customerId, reason: 'Kontrol' } });
  assert.deepEqual(
    paths(problem(await a.api('/api/v1/impersonations', body('stf_0003')), 422, 'staff_role_not_permitted')),
    ['/staffId'],
  );
  problem(await a.api('/api/v1/impersonations', body('stf_0004')), 409, 'staff_invited');
  problem(await a.api('/api/v1/impersonations', body('stf_nope')), 422, 'staff_not_found');
  problem(await a.api('/api/v1/impersonations', body('stf_0002', 'cus_nope')), 422, 'customer_not_found');
  assert.deepEqual(
    paths(
      problem(
        await a.api('/api/v1/impersonations', { body: { staffId: 'stf_0002', customerId: 'cus_0001', minutes: 1 } }),
        422,
        'validation_failed',
      ),
    ).sort(),
    ['/minutes', '/reason'],
  );
  const s = ok(await a.api('/api/v1/impersonations', body('stf_0002')), 201);
  problem(await b.api(`/api/v1/impersonations/${s.id}`), 404, 'not_found');
  problem(await b.api(`/api/v1/impersonations/${s.id}/end`, { method: 'POST' }), 404, 'not_found');
  assert.equal(ok(await a.api(`/api/v1/impersonations/${s.id}`)).status, 'active');
});

test('IYS consent: changes within 15 minutes share one push, due with the latest state in IYS field names', async () => {
  const sb = await createSandbox(engine.url);
  const granted = await sb.api('/api/v1/consents', {
    body: { customerId: 'cus_0011', channel: 'sms', status: 'granted', source: 'mobile' },
  });
  const c = ok(granted, 201);
  assert.deepEqual([c.status, c.iysPush.status], ['granted', 'queued']);
  assert.equal(Date.parse(c.iysPush.dueAt) - Date.parse(c.consentAt), 15 * 60_000);
  await advance(sb, 60);
  const revoked = ok(
    await sb.api('/api/v1/consents', {
      body: { customerId: 'cus_0011', channel: 'sms', status: 'revoked', source: 'sms' },
    }),
  );
  assert.deepEqual([revoked.id, revoked.status, revoked.iysPush.dueAt], [c.id, 'revoked', c.iysPush.dueAt]);
  await advance(sb, 14 * 60);
  assert.equal((await eventTopics(sb)).filter((t) => t === 'consent.iys.push_due').length, 1);
  const e = await lastEvent(sb, 'consent.iys.push_due');
  assert.deepEqual(
    [e.data.consentId, e.data.status, e.data.dueAt, e.occurredAt],
    [c.id, 'revoked', c.iysPush.dueAt, c.iysPush.dueAt],
  );
  const phone = ok(await sb.api('/api/v1/customers/cus_0011')).phone.replace(/[^\d+]/g, '');
  assert.deepEqual(
    { ...e.data.iys, consentDate: undefined },
    {
      type: 'MESAJ',
      source: 'HS_MESAJ',
      recipient: phone,
      status: 'RET',
      consentDate: undefined,
      recipientType: 'BIREYSEL',
    },
  );
  assert.match(e.data.iys.consentDate, /^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d$/);
  assert.equal(
    new Date(`${e.data.iys.consentDate.replace(' ', 'T')}+03:00`).getTime(),
    Math.floor(Date.parse(revoked.consentAt) / 1000) * 1000,
    'Türkiye time',
  );
  const after = ok(await sb.api(`/api/v1/consents/${c.id}`));
  assert.deepEqual([after.iysPush.status, after.iysPush.lastDueAt], ['idle', c.iysPush.dueAt]);
});

test('consent validation, unknown references and tenant isolation', async () => {
  const [a, b] = [await createSandbox(engine.url), await createSandbox(engine.url)];
  assert.deepEqual(
    paths(
      problem(
        await a.api('/api/v1/consents', { body: { customerId: 'cus_0001', channel: 'fax', status: 'maybe' } }),
        422,
        'validation_failed',
      ),
    ).sort(),
    ['/channel', '/status'],
  );
  problem(
    await a.api('/api/v1/consents', { body: { customerId: 'cus_nope', channel: 'email', status: 'granted' } }),
    422,
    'customer_not_found',
  );
  const noPhone = ok(
    await a.api('/api/v1/customers', {
      body: { name: 'Telefonsuz', email: 't@example.com.tr', address: { city: 'Rize', district: 'Merkez' } },
    }),
    201,
  );
  problem(
    await a.api('/api/v1/consents', { body: { customerId: noPhone.id, channel: 'call', status: 'granted' } }),
    422,
    'customer_has_no_phone',
  );
  const email = ok(
    await a.api('/api/v1/consents', { body: { customerId: noPhone.id, channel: 'email', status: 'granted' } }),
    201,
  );
  assert.equal(email.recipient, 't@example.com.tr');
  problem(await b.api(`/api/v1/consents/${email.id}`), 404, 'not_found');
  problem(
    await b.api('/api/v1/consents', { body: { customerId: noPhone.id, channel: 'email', status: 'granted' } }),
    422,
    'customer_not_found',
  );
  assert.equal(ok(await a.api('/api/v1/consents?customerId=cus_0001')).data.length, 2, 'seeded consents');
});
