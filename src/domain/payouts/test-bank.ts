import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { seedDir } from '../../db/paths.ts';

/** One row of seed/test-bank-accounts.json: an IBAN and what paying out to it does. */
export interface TestBankAccount {
  iban: string;
  outcome: 'paid' | 'fails' | 'fails_once';
  failureCode: string | null;
  description: string;
}

let accounts: TestBankAccount[] | undefined;

/** The test IBAN table (read once). */
export function testBankAccounts(): TestBankAccount[] {
  accounts ??= JSON.parse(readFileSync(join(seedDir(), 'test-bank-accounts.json'), 'utf8')) as TestBankAccount[];
  return accounts;
}

/**
 * The sandbox bank: what attempt number `attempt` of a payout to `iban` does. Test accounts
 * fail as listed; every other valid IBAN is paid.
 */
export function bankTransfer(iban: string | null, attempt: number): { ok: true } | { ok: false; failureCode: string } {
  if (!iban) return { ok: false, failureCode: 'no_bank_account' };
  const test = testBankAccounts().find((a) => a.iban === iban);
  if (!test || test.outcome === 'paid' || (test.outcome === 'fails_once' && attempt > 1)) return { ok: true };
  return { ok: false, failureCode: test.failureCode ?? 'declined' };
}

/** ISO 13616 check of a Turkish IBAN: TR, 24 digits, mod 97 = 1. */
export function validTurkishIban(iban: string): boolean {
  if (!/^TR\d{24}$/.test(iban)) return false;
  const rearranged = iban.slice(4) + iban.slice(0, 4);
  const digits = rearranged.replace(/[A-Z]/g, (c) => String(c.charCodeAt(0) - 55));
  let remainder = 0;
  for (const d of digits) remainder = (remainder * 10 + Number(d)) % 97;
  return remainder === 1;
}
