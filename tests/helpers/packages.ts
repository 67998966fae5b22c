import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { packageRoot } from '../../src/shared/node/package-root.ts';

const root = packageRoot();

/**
 * Builds dist/ (the engine, the CLI, sandbay/receiver and sandbay/testing) from the current sources,
 * as `npm pack` does through `prepack`. scripts/build-dist.mjs skips an up-to-date build and swaps
 * files in atomically, so test files running in parallel may all call this.
 */
export async function buildPackages(): Promise<void> {
  await promisify(execFile)(process.execPath, [join(root, 'scripts', 'build-dist.mjs')], { cwd: root });
}
