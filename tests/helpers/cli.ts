import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { isolatedStateHome } from './isolated-state.ts';

const bin = fileURLToPath(new URL('../../bin/sandbay.mjs', import.meta.url));
// An empty data dir home, so no test ever finds (and uses) a real running app's discovery file; the
// registry of running servers is the test process's own too.
const isolatedHome = mkdtempSync(join(tmpdir(), 'sandbay-cli-home-'));
process.on('exit', () => rmSync(isolatedHome, { recursive: true, force: true }));

export interface CliResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

export interface CliOptions {
  env?: Record<string, string>;
  /** Written to the CLI's stdin (then closed). */
  input?: string | Buffer;
}

function cliEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    XDG_DATA_HOME: isolatedHome,
    XDG_STATE_HOME: isolatedStateHome,
    ...extra,
  };
  for (const name of ['SANDBAY_URL', 'SANDBAY_TOKEN', 'SANDBAY_SANDBOX', 'SANDBAY_DATABASE_URL', 'SANDBAY_DATA_DIR'])
    if (!(name in extra)) delete env[name];
  return env;
}

/** A running `sandbay …` child process whose output is collected as it comes. */
export class CliProcess {
  stdout = '';
  stderr = '';
  readonly exited: Promise<CliResult>;
  private readonly child: ChildProcess;

  constructor(args: string[], options: CliOptions = {}) {
    this.child = spawn(process.execPath, [bin, ...args], { env: cliEnv(options.env), stdio: 'pipe' });
    this.child.stdout!.on('data', (c: Buffer) => (this.stdout += c.toString('utf8')));
    this.child.stderr!.on('data', (c: Buffer) => (this.stderr += c.toString('utf8')));
    this.child.stdin!.end(options.input);
    this.exited = new Promise((resolve) => {
      this.child.on('close', (code, signal) => resolve({ code, signal, stdout: this.stdout, stderr: this.stderr }));
    });
  }

  get lines(): string[] {
    return this.stdout.split('\n').filter(Boolean);
  }

  /** Resolves with the first stdout line matching, or rejects (with the output so far) after timeoutMs. */
  async waitForLine(match: RegExp, timeoutMs = 20_000): Promise<string> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const line = this.lines.find((l) => match.test(l));
      if (line) return line;
      if (Date.now() > deadline || this.child.exitCode !== null) {
        throw new Error(`no stdout line matching ${match}; stdout:\n${this.stdout}\nstderr:\n${this.stderr}`);
      }
      await new Promise((r) => setTimeout(r, 20));
    }
  }

  /** Sends a signal (Ctrl-C by default) and waits for the exit. */
  async stop(signal: NodeJS.Signals = 'SIGINT'): Promise<CliResult> {
    this.child.kill(signal);
    return this.exited;
  }
}

/** Runs `sandbay …` to completion. */
export function runCli(args: string[], options: CliOptions = {}): Promise<CliResult> {
  return new CliProcess(args, options).exited;
}

/** Runs `sandbay … --json`, asserts success and returns the parsed output. */
export async function runCliJson(args: string[], options: CliOptions = {}): Promise<any> {
  const result = await runCli([...args, '--json'], options);
  assert.equal(result.code, 0, `sandbay ${args.join(' ')} failed: ${result.stderr}`);
  return JSON.parse(result.stdout);
}

/** Asserts the CLI's failure contract: non-zero exit, one line `sandbay: <reason>` on stderr, no stack trace. */
export function assertOneLineFailure(result: CliResult, reason: RegExp): void {
  assert.notEqual(result.code, 0, `expected a failure; stdout: ${result.stdout}`);
  const lines = result.stderr.split('\n').filter(Boolean);
  assert.equal(lines.length, 1, `expected one stderr line, got:\n${result.stderr}`);
  assert.match(lines[0], /^sandbay: /);
  assert.match(lines[0], reason);
  assert.doesNotMatch(result.stderr + result.stdout, /\n\s+at |Error:/, 'no stack trace');
}

/**
 * Runs independent `sandbay` commands a few at a time (each its own process: they share nothing but the
 * engine they ask, and most of a failing command's time is Node starting) and asserts that each fails in
 * one line with its reason.
 */
export async function assertOneLineFailures(cases: [args: string[], reason: RegExp, options?: CliOptions][]) {
  const results: CliResult[] = [];
  let next = 0;
  const worker = async () => {
    for (let i = next++; i < cases.length; i = next++) results[i] = await runCli(cases[i][0], cases[i][2]);
  };
  await Promise.all(Array.from({ length: 4 }, worker));
  results.forEach((result, i) => assertOneLineFailure(result, cases[i][1]));
}
