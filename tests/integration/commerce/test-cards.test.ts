import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { createSandbox, useEngine } from '../../helpers/engine.ts';
import { ok } from './helpers.ts';

const engine = useEngine();

// An independent Luhn check (not the project's), over the committed table.
function luhn(number: string): boolean {
  const digits = [...number].reverse().map(Number);
  return digits.reduce((sum, d, i) => sum + (i % 2 ? (d * 2 > 9 ? d * 2 - 9 : d * 2) : d), 0) % 10 === 0;
}

test('every test card in seed/test-cards.json passes the Luhn check, and the table covers every flow', () => {
  const cards = JSON.parse(readFileSync(new URL('../../../seed/test-cards.json', import.meta.url), 'utf8')) as any[];
  for (const c of cards) assert.ok(/^\d{13,19}$/.test(c.number) && luhn(c.number), `${c.number} passes Luhn`);
  assert.equal(new Set(cards.map((c) => c.number)).size, cards.length, 'no number twice');
  assert.ok(new Set(cards.map((c) => c.provider)).size >= 3, 'several providers');
  for (const code of ['insufficient_funds', 'fraudulent', 'expired_card', 'incorrect_cvc'])
    assert.ok(
      cards.some((c) => c.declineCode === code),
      code,
    );
  assert.ok(
    cards.some((c) => c.outcome === 'requires_action'),
    '3-D Secure',
  );
  assert.ok(
    cards.some((c) => c.outcome === 'captured' && c.refund === 'fails'),
    'refund failure',
  );
});

test('GET /api/v1/payments/test-cards lists the same table for the portal', async () => {
  const sb = await createSandbox(engine.url);
  const listed = ok(await sb.api('/api/v1/payments/test-cards')).data;
  const file = JSON.parse(readFileSync(new URL('../../../seed/test-cards.json', import.meta.url), 'utf8'));
  assert.deepEqual(listed, file);
});
