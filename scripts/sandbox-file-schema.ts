// `npm run docs:sandbox-file`: writes docs/sandbox-file.schema.json from the sandbox file's table list
// (src/domain/sandboxes/portable/manifest.ts); tests/unit/sandbox-file-schema.test.ts fails while it differs.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { sandboxFileSchema } from '../src/domain/sandboxes/portable/schema.ts';

export const schemaPath = join(import.meta.dirname, '..', 'docs', 'sandbox-file.schema.json');
export const schemaText = () => `${JSON.stringify(sandboxFileSchema(), null, 2)}\n`;

if (process.argv[1] === import.meta.filename) writeFileSync(schemaPath, schemaText());
