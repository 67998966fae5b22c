import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { packageRoot } from '../../src/shared/node/package-root.ts';
import { codeBlocks } from './markdown.ts';

/** A documentation file of the repository (README.md, docs/receivers.md …), as text. */
export const readDoc = (path: string): string => readFileSync(join(packageRoot(), path), 'utf8');

/** The fenced code blocks of one language in docs/receivers.md, in order (run verbatim by the tests). */
export function receiverBlocks(language: string): string[] {
  return codeBlocks(readDoc('docs/receivers.md'), language);
}
