import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { packageRoot } from '../../src/shared/node/package-root.ts';

const readme = readFileSync(join(packageRoot(), 'README.md'), 'utf8');

/** The README's fenced code blocks of one language, in order (run verbatim by the tests). */
export function readmeBlocks(language: string): string[] {
  return [...readme.matchAll(new RegExp('```' + language + '\\n([\\s\\S]*?)```', 'g'))].map((m) => m[1]);
}
