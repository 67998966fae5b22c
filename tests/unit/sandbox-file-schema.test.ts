import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { schemaPath, schemaText } from '../../scripts/sandbox-file-schema.ts';

test('docs/sandbox-file.schema.json is the schema the table list makes (npm run docs:sandbox-file rewrites it)', () => {
  assert.equal(readFileSync(schemaPath, 'utf8'), schemaText());
});
