// `sandbay serve --database-url` and `--postgres`: what a user who gets them wrong is told.
import assert from 'node:assert/strict';
import { createServer, type AddressInfo } from 'node:net';
import { test } from 'node:test';
import { assertOneLineFailure, runCli } from '../helpers/cli.ts';

test('a --database-url that is not a postgres:// URL, or given with --postgres, is a usage error', async () => {
  assertOneLineFailure(
    await runCli(['serve', '--memory', '--port', '0', '--database-url', 'mysql://u:p@host/db']),
    /^sandbay: --database-url must look like postgres:\/\/user:password@host:5432\/database$/,
  );
  assertOneLineFailure(
    await runCli(['serve', '--memory', '--port', '0'], { env: { SANDBAY_DATABASE_URL: 'not a url' } }),
    /^sandbay: --database-url must look like postgres:\/\//,
  );
  assertOneLineFailure(
    await runCli(['serve', '--memory', '--port', '0', '--postgres', '--database-url', 'postgres://h/db']),
    /cannot be used with option '--database-url/,
  );
});

test('an unreachable database server is one line naming it, its password masked', async () => {
  const server = createServer();
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((r) => server.close(() => r()));
  const result = await runCli([
    'serve',
    '--memory',
    '--port',
    '0',
    '--database-url',
    `postgres://sandbay:s3cret-pw@127.0.0.1:${port}/sandbay`,
  ]);
  assertOneLineFailure(
    result,
    new RegExp(
      `^sandbay: cannot use the database at postgres://sandbay:\\*\\*\\*@127\\.0\\.0\\.1:${port}/sandbay: .*ECONNREFUSED`,
    ),
  );
  assert.doesNotMatch(result.stdout + result.stderr, /s3cret-pw/);
});

test('the pool size and the PostgreSQL timeouts are flags (or SANDBAY_* variables); bad values are one-line usage errors', async () => {
  assertOneLineFailure(
    await runCli(['serve', '--memory', '--port', '0', '--pool-size', '1']),
    /^sandbay: --pool-size must be 2–1000, not 1$/,
  );
  assertOneLineFailure(
    await runCli(['serve', '--memory', '--port', '0'], { env: { SANDBAY_STATEMENT_TIMEOUT: 'soon' } }),
    /^sandbay: not a duration: soon/,
  );
  const { databaseTimeouts } = await import('../../src/cli/commands/serve.ts');
  const flags = { port: '0', host: '127.0.0.1', allowHost: [] };
  assert.deepEqual(
    databaseTimeouts({
      ...flags,
      statementTimeout: '2.5s',
      lockTimeout: '1s',
      connectTimeout: '3',
      idleInTransactionTimeout: '1m',
    }),
    { statementMs: 2_500, lockMs: 1_000, connectMs: 3_000, idleInTransactionMs: 60_000 },
  );
  assert.deepEqual(databaseTimeouts(flags), {}, 'unset flags keep the defaults');
});
