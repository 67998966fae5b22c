import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * This test process's own XDG_STATE_HOME, so the registry of running servers (src/server/server-registry.ts)
 * its servers write and its CLI runs read is no other test file's, nor the developer's.
 */
export const isolatedStateHome = mkdtempSync(join(tmpdir(), 'sandbay-state-'));
process.on('exit', () => rmSync(isolatedStateHome, { recursive: true, force: true }));
