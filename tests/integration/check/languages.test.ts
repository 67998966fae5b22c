// Real receivers in Python, Node, Go and PHP, each with one real-world bug written the way that
// language's users write it (tests/fixtures/receivers): the check names exactly that bug, with the fix
// in that language, and no case passes by refusing a request while a correct delivery is refused.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { packageRoot } from '../../../src/shared/node/package-root.ts';
import { createSandbox, useEngine } from '../../helpers/engine.ts';
import { receiverEnv, useReceiverProcesses } from '../../helpers/receiver-process.ts';
import { blockedCases, caseOf, failedCases, passedCases, rejectionCases, runCheck } from './helpers.ts';

const engine = useEngine();
const fixtures = join(packageRoot(), 'tests', 'fixtures', 'receivers');
const build = mkdtempSync(join(tmpdir(), 'sandbay-language-receivers-'));
after(() => rmSync(build, { recursive: true, force: true }));
const secret = 'whsec_languageReceiverSecret01234567';
const env = receiverEnv(secret);
const start = useReceiverProcesses();

type Command = (port: number) => [string, string[]];
const python =
  (file: string): Command =>
  () => ['python3', [join(fixtures, 'python', file)]];
const node =
  (file: string): Command =>
  () => [process.execPath, [join(fixtures, 'node', file)]];
const php =
  (file: string): Command =>
  (port) => ['php', ['-S', `127.0.0.1:${port}`, join(fixtures, 'php', file)]];
const go = (folder: string): Command => {
  const binary = join(build, `go-${folder}`);
  return () => {
    execFileSync('go', ['build', '-o', binary, 'main.go'], { cwd: join(fixtures, 'go', folder), env, stdio: 'pipe' });
    return [binary, []];
  };
};

interface Expectation {
  failed: string[];
  /** What the failed cases' cause says, naming the bug (and for a re-serialiser, the language's serialiser). */
  cause: RegExp;
  /** The fix, in the receiver's language. */
  fix: RegExp;
}

const receivers: [string, Command, Expectation][] = [
  [
    'Python re-serialising with json.dumps',
    python('reserialise.py'),
    {
      failed: ['valid'],
      cause:
        /rejects correctly signed deliveries .* it parses the JSON and serialises it again .* Python's json\.dumps/,
      fix: /^In Python \(http\.server\): verify self\.rfile\.read/,
    },
  ],
  [
    'Python re-serialising with json.dumps(separators=(",", ":"))',
    python('reserialise-compact.py'),
    {
      failed: ['utf8-body'],
      cause: /it parses the JSON and serialises it again .* Python's json\.dumps with separators=\(",", ":"\)/,
      fix: /^In Python \(http\.server\): verify self\.rfile\.read/,
    },
  ],
  [
    'Python decoding the body as Latin-1',
    python('latin1.py'),
    {
      failed: ['utf8-body'],
      cause: /wrong character set \(Latin-1\)/,
      fix: /^In Python \(http\.server\): hash the bytes as received/,
    },
  ],
  [
    'Node verifying JSON.stringify of the parsed body',
    node('reserialise.mjs'),
    {
      failed: ['utf8-body'],
      cause: /it parses the JSON and serialises it again .* JavaScript's JSON\.stringify/,
      fix: /^In Node\.js: verify the raw body as a Buffer/,
    },
  ],
  [
    'Node answering 500 to everything (an unset secret variable)',
    node('fails-everything.mjs'),
    {
      failed: ['valid'],
      cause:
        /answers 500 "Internal Server Error" to correctly signed deliveries, whatever their byte form or key: .*a Node\.js receiver/,
      fix: /exception in the receiver's log/,
    },
  ],
  [
    'Go re-serialising with encoding/json',
    go('reserialise'),
    {
      failed: ['valid'],
      cause: /it parses the JSON and serialises it again .* Go's encoding\/json/,
      fix: /^In Go \(net\/http\): verify payload, _ := io\.ReadAll\(r\.Body\)/,
    },
  ],
  [
    'Go stripping the whsec_ prefix',
    go('strip-prefix'),
    {
      failed: ['valid'],
      cause: /it keys the HMAC with the secret without its whsec_ prefix/,
      fix: /^In Go \(net\/http\): hmac\.New\(sha256\.New, \[\]byte\(secret\)\) with the whole whsec_… string/,
    },
  ],
  [
    'PHP re-serialising with json_encode',
    php('reserialise.php'),
    {
      failed: ['utf8-body'],
      cause: /it parses the JSON and serialises it again .* PHP's json_encode/,
      fix: /^In PHP: verify file_get_contents\('php:\/\/input'\) as read/,
    },
  ],
  [
    'PHP skipping the timestamp check',
    php('skips-timestamp.php'),
    {
      failed: ['stale-timestamp', 'future-timestamp'],
      cause: /timestamp is not checked|only old timestamps are refused/,
      fix: /300 s/,
    },
  ],
  [
    'PHP rejecting everything (the wrong header name)',
    php('rejects-everything.php'),
    {
      failed: ['valid'],
      cause:
        /rejects correctly signed deliveries \(401 "unauthorized"\), in every byte form .*: it rejects every request, .*a PHP receiver/,
      fix: /current secret/,
    },
  ],
];

for (const [name, command, expected] of receivers) {
  test(`${name}: the report names exactly that bug, with the fix in its language`, async () => {
    const { url } = await start(build, command, env);
    const sb = await createSandbox(engine.url);
    const run = await runCheck(sb, { url, secret });
    const summary = JSON.stringify(
      run.report.cases.filter((c: any) => c.status !== 'passed').map((c: any) => [c.id, c.status, c.cause, c.fix]),
      null,
      1,
    );
    assert.deepEqual(failedCases(run), expected.failed, summary);
    for (const id of expected.failed) {
      assert.match(caseOf(run, id).cause, expected.cause, summary);
      assert.match(caseOf(run, id).fix, expected.fix, summary);
    }
    if (expected.failed.includes('valid')) {
      const passed = passedCases(run);
      assert.deepEqual(
        passed.filter((id) => rejectionCases.includes(id) || id === 'latency' || id === 'redirect'),
        [],
        'no refusal scores while valid fails',
      );
      assert.deepEqual(run.report.rootCause.blocks, blockedCases(run));
      assert.equal(passed.length + blockedCases(run).length + 1, 15);
    } else {
      assert.equal(run.report.rootCause, null);
      assert.deepEqual(blockedCases(run), []);
    }
  });
}
