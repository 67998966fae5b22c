// The V8 flags the engine starts with: package.json's sandbay.engineV8Flags (why each:
// docs/decisions/engine-memory-levers.md). V8 reads them only when a process starts, so a process that is to
// run the engine replaces itself (execve: the same pid, nothing left behind) with one started with them.
import { readFileSync } from 'node:fs';

/**
 * Re-executes this process with the engine's V8 flags, unless it has them. A flag the user already set, on
 * the command line or in NODE_OPTIONS, is theirs; where execve is missing (Windows, Node before 22.15) the
 * process goes on with V8's defaults.
 */
export function relaunchWithEngineV8Flags() {
  if (typeof process.execve !== 'function') return;
  const manifest = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));
  const given = [...process.execArgv, ...(process.env.NODE_OPTIONS ?? '').split(/\s+/)];
  const named = (flag) => flag.split('=')[0];
  const missing = manifest.sandbay.engineV8Flags.filter((flag) => !given.some((g) => named(g) === named(flag)));
  if (missing.length > 0)
    process.execve(process.execPath, [process.execPath, ...missing, ...process.execArgv, ...process.argv.slice(1)]);
}
