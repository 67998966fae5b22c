#!/usr/bin/env node
// The `sandbay` command. An installed package runs the compiled JavaScript in dist/. A git
// checkout with its dev dependencies runs the TypeScript sources through tsx instead, so
// development needs no build step; without them (`npm ci --omit=dev`) it runs dist/ too.
import { existsSync } from 'node:fs';

const sources = new URL('../src/cli/main.ts', import.meta.url);
const compiled = new URL('../dist/cli/main.js', import.meta.url);

/** Loads tsx's loader when it is installed (it is a dev dependency); false when it is not. */
async function registerTsx() {
  try {
    const { register } = await import('tsx/esm/api');
    register();
    return true;
  } catch (err) {
    if (err?.code === 'ERR_MODULE_NOT_FOUND') return false;
    throw err;
  }
}

if (existsSync(sources) && (await registerTsx())) {
  await (await import(sources.href)).run();
} else if (existsSync(compiled)) {
  await (await import(compiled.href)).run();
} else {
  process.stderr.write(
    'sandbay: the compiled CLI (dist/) is missing: run `npm run build:dist` with the dev dependencies installed\n',
  );
  process.exit(1);
}
