#!/usr/bin/env node
// The `sandbay` command. An installed package runs the compiled JavaScript in dist/. A git
// checkout with its dev dependencies runs the TypeScript sources through tsx instead, so
// development needs no build step; without them (`npm ci --omit=dev`) it runs dist/ too.
import { existsSync, readFileSync } from 'node:fs';
import { relaunchWithEngineV8Flags } from './engine-v8-flags.mjs';

// Checked before anything else loads: on an older Node the app fails later with an error that does not
// say why (a missing API, a syntax error in a dependency), or half works. package.json's engines
// (">=MAJOR.MINOR[.PATCH]") is the one source of the version needed.
const needed = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')).engines.node;
const numbers = (version) => version.replace(/^\D*/, '').split('.').map(Number);

/** Whether version `a` comes before `b`, number by number (22.9 before 22.12). */
function before(a, b) {
  for (let i = 0; i < b.length; i++) if ((a[i] ?? 0) !== b[i]) return (a[i] ?? 0) < b[i];
  return false;
}

if (before(numbers(process.versions.node), numbers(needed))) {
  process.stderr.write(
    `sandbay: Node ${process.versions.node} is too old: Sandbay needs Node ${needed} (https://nodejs.org)\n`,
  );
  process.exit(1);
}

// The commands that run the engine in this process start it with the engine's V8 flags.
if (['serve', 'start'].includes(process.argv[2])) relaunchWithEngineV8Flags();

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
