// docs/decisions/ holds one file per decision and an index (README.md) that lists them by topic: a new file that
// the index does not link would be found only by browsing the folder.
import assert from 'node:assert/strict';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { packageRoot } from '../../src/shared/node/package-root.ts';
import { readDoc } from '../helpers/docs.ts';
import { linkTargets } from '../helpers/markdown.ts';

const dir = 'docs/decisions';

test('every file in docs/decisions/ is listed in its index, and each has a title line', () => {
  const files = readdirSync(join(packageRoot(), dir)).filter((f) => f.endsWith('.md') && f !== 'README.md');
  assert.ok(files.length > 100, `found ${files.length} decisions`);
  const listed = new Set(linkTargets(readDoc(`${dir}/README.md`)).map((t) => t.split('#')[0]));
  assert.deepEqual(
    files.filter((f) => !listed.has(f)).map((f) => `${f}: add "- [Title](${f}): one line" to ${dir}/README.md`),
    [],
  );
  assert.deepEqual(
    files.filter((f) => !/^# \S/.test(readDoc(`${dir}/${f}`))),
    [],
    'a decision starts with its title (# …)',
  );
});
