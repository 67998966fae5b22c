import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { seedDir } from '../../db/paths.ts';
import type { TestCard } from '../../shared/api-types.ts';

let cards: TestCard[] | undefined;

/** The test card table (read once). */
export function testCards(): TestCard[] {
  cards ??= JSON.parse(readFileSync(join(seedDir(), 'test-cards.json'), 'utf8')) as TestCard[];
  return cards;
}

/** The test card with this number, if it is one. */
export const findTestCard = (number: string): TestCard | undefined => testCards().find((c) => c.number === number);

/** The Luhn (mod 10) check every card number passes. */
export function luhnValid(number: string): boolean {
  let sum = 0;
  for (let i = 0; i < number.length; i++) {
    let digit = Number(number[number.length - 1 - i]);
    if (i % 2 === 1) digit = digit * 2 > 9 ? digit * 2 - 9 : digit * 2;
    sum += digit;
  }
  return number.length > 0 && sum % 10 === 0;
}
