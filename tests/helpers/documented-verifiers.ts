import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * Runs a verifier from the docs over cases it reads from a JSON file (`input` of each, in order) and
 * compares its answers with the expected ones, named by case so that a failure says which.
 */
export function checkAnswers<C extends { name: string; expect: string }>(
  dir: string,
  all: C[],
  input: (c: C) => object,
  run: (casesFile: string) => string,
): void {
  const file = join(dir, `cases-${Math.random().toString(36).slice(2)}.json`);
  writeFileSync(file, JSON.stringify(all.map(input)));
  const results: string[] = JSON.parse(run(file));
  assert.deepEqual(
    all.map((c, i) => `${c.name}: ${results[i]}`),
    all.map((c) => `${c.name}: ${c.expect}`),
  );
}

// Go needs a build cache (a CI shell may have no $HOME to put it under), and must never try to
// download a toolchain or a module: the docs' receivers use the standard library only.
const env = {
  ...process.env,
  GOCACHE: process.env.GOCACHE ?? join(tmpdir(), 'sandbay-go-cache'),
  GOTOOLCHAIN: 'local',
  GOPROXY: 'off',
};

/** Runs an interpreter (or `go run`) on a docs verifier's harness; returns what it printed. */
export const runVerifier = (cmd: string, args: string[]) =>
  execFileSync(cmd, args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], env });
