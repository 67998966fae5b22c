import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { call } from '../helpers/engine.ts';
import { runCli, type ServeProcess } from '../helpers/process.ts';
import { operatorKey } from '../helpers/session.ts';

const started: ServeProcess[] = [];
after(() => {
  for (const p of started) if (p.child.exitCode === null) p.child.kill('SIGKILL');
});

const cli = (args: string[], env: Record<string, string> = {}) => {
  const proc = runCli(['serve', '--quiet', '--port', '0', '--memory', ...args], {
    SANDBAY_ADMIN_KEY: '',
    SANDBAY_PUBLIC_URL: '',
    SANDBAY_ALLOW_RECEIVERS: '',
    SANDBAY_OPEN_SANDBOX_CREATION: '',
    ...env,
  });
  started.push(proc);
  return proc;
};

async function readyLine(proc: ServeProcess): Promise<string> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    const line = /^Sandbay ready: .*$/m.exec(proc.stdout)?.[0];
    if (line) return line;
    if (proc.child.exitCode !== null || Date.now() > deadline)
      throw new Error(`no ready line: ${proc.stdout}\n${proc.stderr}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

test('serve --host 0.0.0.0 without an admin key exits with one line saying how', async () => {
  const proc = cli(['--host', '0.0.0.0']);
  assert.equal((await proc.exited).code, 1);
  const message = proc.stderr.trim();
  assert.equal(message.split('\n').length, 1, message);
  assert.match(
    message,
    /^sandbay: Sandbay binds 0\.0\.0\.0, beyond loopback.*pass --admin-key KEY \(or set SANDBAY_ADMIN_KEY/,
  );
  assert.equal(proc.stdout, '');
});

test('bad --public-url and a short --admin-key are refused at start-up', async () => {
  const path = cli(['--public-url', 'https://sandbay.example.com/app', '--admin-key', operatorKey]);
  assert.equal((await path.exited).code, 1);
  assert.match(path.stderr, /^sandbay: --public-url is an origin .* try https:\/\/sandbay\.example\.com\n$/);
  const short = cli(['--host', '0.0.0.0'], { SANDBAY_ADMIN_KEY: 'short' });
  assert.equal((await short.exited).code, 1);
  assert.match(short.stderr, /--admin-key must be at least 32 characters/);
});

test('with SANDBAY_ADMIN_KEY and SANDBAY_PUBLIC_URL: the ready line shows the public URL, never the key', async () => {
  const proc = cli(['--host', '0.0.0.0'], {
    SANDBAY_ADMIN_KEY: operatorKey,
    SANDBAY_PUBLIC_URL: 'http://sandbay.test:8080',
  });
  const line = await readyLine(proc);
  const match =
    /^Sandbay ready: http:\/\/sandbay\.test:8080\/ {2}\(listening on 0\.0\.0\.0:(\d+), every IPv4 interface: http:\/\/127\.0\.0\.1:\1 on this machine, http:\/\/sandbay\.test:8080 from others; data: memory; shared: teammates sign in with their sandbox's credentials\)$/.exec(
      line,
    );
  assert.ok(match, line);
  assert.ok(!proc.stdout.includes(operatorKey));
  const list = await call(`http://127.0.0.1:${match[1]}`, '/api/v1/sandboxes', { token: operatorKey });
  assert.equal(list.status, 200, 'the operator uses the key from the CLI or API');
  proc.child.kill('SIGTERM');
  assert.equal((await proc.exited).code, 0);
});

test('--host 0.0.0.0: the ready line says what is bound and where to reach it, on this machine and from others', async () => {
  const bare = cli(['--host', '0.0.0.0'], { SANDBAY_ADMIN_KEY: operatorKey });
  const line = await readyLine(bare);
  const port = /^Sandbay ready: http:\/\/127\.0\.0\.1:(\d+)\/ {2}\(/.exec(line)?.[1];
  assert.ok(port, line);
  assert.ok(
    line.includes(
      `(listening on 0.0.0.0:${port}, every IPv4 interface: http://127.0.0.1:${port} on this machine; other machines need a name it accepts (--allow-host or --public-url); data: memory;`,
    ),
    line,
  );
  bare.child.kill('SIGTERM');
  assert.equal((await bare.exited).code, 0);

  // 127.0.0.2 stands for another machine's view: an address of the wildcard bind, accepted by --allow-host.
  const named = cli(['--host', '0.0.0.0', '--allow-host', '127.0.0.2'], { SANDBAY_ADMIN_KEY: operatorKey });
  const namedLine = await readyLine(named);
  const namedPort = /^Sandbay ready: http:\/\/127\.0\.0\.1:(\d+)\//.exec(namedLine)![1];
  assert.ok(
    namedLine.includes(
      `(listening on 0.0.0.0:${namedPort}, every IPv4 interface: http://127.0.0.1:${namedPort} on this machine, http://127.0.0.2:${namedPort} from others; data: memory;`,
    ),
    namedLine,
  );
  // What it names is true: both URLs answer.
  for (const url of [`http://127.0.0.1:${namedPort}`, `http://127.0.0.2:${namedPort}`])
    assert.equal((await call(url, '/api/v1/health')).status, 200, url);
  named.child.kill('SIGTERM');
  assert.equal((await named.exited).code, 0);
});

test('the default loopback bind keeps the ready line SPEC §1 fixes, with no listening detail', async () => {
  const line = await readyLine(cli([]));
  assert.match(line, /^Sandbay ready: http:\/\/127\.0\.0\.1:\d+\/\?key=\S+ {2}\(data: memory\)$/);
});

test('--allow-receivers (or SANDBAY_ALLOW_RECEIVERS) lists blocks receivers may be in; a bad one stops the start in one line', async () => {
  const bad = cli(['--host', '0.0.0.0', '--allow-receivers', '10.0.0.0/8,intranet'], {
    SANDBAY_ADMIN_KEY: operatorKey,
  });
  assert.equal((await bad.exited).code, 1);
  assert.equal(
    bad.stderr,
    'sandbay: --allow-receivers: "intranet" is not an IP address or CIDR block (e.g. 10.0.0.0/8 or fd00::/8)\n',
  );
  const proc = cli(['--host', '0.0.0.0'], {
    SANDBAY_ADMIN_KEY: operatorKey,
    SANDBAY_ALLOW_RECEIVERS: '10.20.0.0/16, fd00::/8',
    SANDBAY_OPEN_SANDBOX_CREATION: '0',
  });
  const line = await readyLine(proc);
  assert.match(line, /; receivers may also be in 10\.20\.0\.0\/16, fd00::\/8\)$/);
  const url =
    /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(line)?.[1] ?? /(http:\/\/127\.0\.0\.1:\d+)/.exec(line)![1];
  const closed = await call(url, '/api/v1/sandboxes', { method: 'POST' });
  assert.equal(closed.status, 403, 'SANDBAY_OPEN_SANDBOX_CREATION=0 leaves it closed');
  proc.child.kill('SIGTERM');
  await proc.exited;
  const open = cli(['--host', '0.0.0.0'], { SANDBAY_ADMIN_KEY: operatorKey, SANDBAY_OPEN_SANDBOX_CREATION: '1' });
  const openUrl = /(http:\/\/127\.0\.0\.1:\d+)/.exec(await readyLine(open))![1];
  assert.equal((await call(openUrl, '/api/v1/sandboxes', { method: 'POST' })).status, 201);
  open.child.kill('SIGTERM');
  await open.exited;
});
