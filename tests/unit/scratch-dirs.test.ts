import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { makeScratchDir, scratchBase } from '../../src/db/template.ts';

// --memory instances live in scratch dirs named for their pid; a process killed before it
// could remove its dir leaves it behind, and the next start sweeps it (docs/decisions/template-data-dir.md).
test("making a scratch dir sweeps those of dead processes and keeps a live process's", () => {
  const deadPid = spawnSync(process.execPath, ['-e', '']).pid;
  const tag = `sweep-test-${Math.random().toString(36).slice(2, 10)}`;
  const dead = join(scratchBase(), `sandbay-mem-${deadPid}-${tag}`);
  const live = join(scratchBase(), `sandbay-mem-${process.pid}-${tag}`);
  for (const dir of [dead, live]) {
    mkdirSync(join(dir, 'base'), { recursive: true });
    writeFileSync(join(dir, 'base', 'PG_VERSION'), '17');
  }
  try {
    const made = makeScratchDir();
    assert.ok(made.startsWith(join(scratchBase(), `sandbay-mem-${process.pid}-`)), made);
    assert.equal(existsSync(dead), false, "the dead process's dir is swept");
    assert.equal(existsSync(join(live, 'base', 'PG_VERSION')), true, "a running process's dir is kept");
  } finally {
    rmSync(dead, { recursive: true, force: true });
    rmSync(live, { recursive: true, force: true });
  }
});
