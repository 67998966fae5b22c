import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { packageRoot } from '../../src/shared/node/package-root.ts';
import { codeBlocks } from './markdown.ts';

/** A documentation file of the repository (README.md, docs/receivers.md …), as text. */
export const readDoc = (path: string): string => readFileSync(join(packageRoot(), path), 'utf8');

/**
 * The receiver pages, in the order their blocks are numbered: each language's page first (its verifier, then its
 * receiver), then the overview (the debug echo's recipes) and the pages on checking and testing a receiver.
 */
const receiverPages = [
  'docs/receivers/node.md',
  'docs/receivers/python.md',
  'docs/receivers/go.md',
  'docs/receivers/php.md',
  'docs/receivers.md',
  'docs/receivers/check.md',
  'docs/receivers/testing.md',
];

/** The fenced code blocks of one language in the receiver pages, in order (run verbatim by the tests). */
export function receiverBlocks(language: string): string[] {
  return receiverPages.flatMap((page) => codeBlocks(readDoc(page), language));
}
