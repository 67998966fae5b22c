import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  checkAdminKey,
  isLoopbackHost,
  parsePublicUrl,
  resolveExposure,
  StartupError,
} from '../../src/server/auth/shared-server.ts';
import { cookiePort } from '../../src/server/auth/session-cookie.ts';
import { operatorKey } from '../helpers/session.ts';

test('loopback is 127.0.0.0/8, ::1 and localhost; a wildcard bind and every other address are beyond it', () => {
  for (const host of [
    '127.0.0.1',
    '127.0.0.2',
    'localhost',
    'LOCALHOST',
    'app.localhost',
    '::1',
    '[::1]',
    '::ffff:127.0.0.1',
  ]) {
    assert.equal(isLoopbackHost(host), true, host);
  }
  for (const host of [
    '0.0.0.0',
    '::',
    '10.0.0.5',
    '192.168.1.20',
    'sandbay.example.com',
    '128.0.0.1',
    'localhost.example.com',
  ]) {
    assert.equal(isLoopbackHost(host), false, host);
  }
});

test('a public URL is an http(s) origin: no path, query, fragment or credentials', () => {
  assert.equal(parsePublicUrl('https://sandbay.example.com'), 'https://sandbay.example.com');
  assert.equal(parsePublicUrl('https://sandbay.example.com/'), 'https://sandbay.example.com');
  assert.equal(parsePublicUrl('http://10.0.0.5:8080'), 'http://10.0.0.5:8080');
  assert.equal(
    parsePublicUrl('HTTPS://Sandbay.Example.com:443'),
    'https://sandbay.example.com',
    'normalised like a browser would',
  );
  const refusals: [string, RegExp][] = [
    ['sandbay.example.com', /absolute http\(s\) URL/],
    ['ftp://sandbay.example.com', /http or https, not ftp/],
    ['https://sandbay.example.com/app', /no path, query or fragment: try https:\/\/sandbay\.example\.com$/],
    ['https://sandbay.example.com/?x=1', /no path, query or fragment/],
    ['https://sandbay.example.com?', /no path, query or fragment/],
    ['https://sandbay.example.com/#top', /no path, query or fragment/],
    ['https://ops:pw@sandbay.example.com', /user name or password/],
  ];
  for (const [value, message] of refusals)
    assert.throws(
      () => parsePublicUrl(value),
      (err: Error) => err instanceof StartupError && message.test(err.message),
      value,
    );
});

test('an explicit admin key must be at least 32 printable characters', () => {
  assert.equal(checkAdminKey(operatorKey), operatorKey);
  assert.throws(() => checkAdminKey('short-key'), /at least 32 characters \(try: openssl rand -hex 32\)/);
  assert.throws(() => checkAdminKey(`${operatorKey} with spaces`), /printable ASCII with no spaces/);
  assert.throws(() => checkAdminKey(''), StartupError);
});

test('shared = bound beyond loopback, or published at a non-loopback URL; either needs an explicit admin key', () => {
  assert.deepEqual(resolveExposure({ host: '127.0.0.1' }), {
    shared: false,
    publicUrl: undefined,
    adminKey: undefined,
  });
  assert.equal(
    resolveExposure({ host: '127.0.0.1', publicUrl: 'http://localhost:8080' }).shared,
    false,
    'a loopback proxy stays local',
  );
  assert.equal(resolveExposure({ host: '0.0.0.0', adminKey: operatorKey }).shared, true);
  assert.equal(
    resolveExposure({ host: '127.0.0.1', publicUrl: 'https://sandbay.example.com', adminKey: operatorKey }).shared,
    true,
  );
  assert.throws(
    () => resolveExposure({ host: '0.0.0.0' }),
    /binds 0\.0\.0\.0, beyond loopback.*--admin-key KEY \(or set SANDBAY_ADMIN_KEY/,
  );
  assert.throws(
    () => resolveExposure({ host: '127.0.0.1', publicUrl: 'https://sandbay.example.com' }),
    /published at https:\/\/sandbay\.example\.com.*--admin-key/,
  );
});

test('cookies are named with the public port when there is a public URL (every engine behind it agrees)', () => {
  assert.equal(cookiePort(4400), 4400);
  assert.equal(cookiePort(4400, 'https://sandbay.example.com'), 443);
  assert.equal(cookiePort(4400, 'http://sandbay.example.com'), 80);
  assert.equal(cookiePort(4400, 'http://10.0.0.5:8080'), 8080);
});
