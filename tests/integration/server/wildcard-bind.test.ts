import assert from 'node:assert/strict';
import { test } from 'node:test';
import { call, useEngine } from '../../helpers/engine.ts';
import { operatorKey } from '../../helpers/session.ts';

// --host 0.0.0.0 is how Docker users expose Sandbay: beyond loopback, so it needs an explicit admin
// key (SPEC §9), and the URL printed and written for the CLI stays loopback.
const engine = useEngine({ host: '0.0.0.0', adminKey: operatorKey });

test('a wildcard bind still reports a loopback URL, and that URL works', async () => {
  assert.match(engine.url, /^http:\/\/127\.0\.0\.1:\d+$/);
  assert.equal(engine.running.shared, true);
  assert.equal(engine.running.readyUrl, `${engine.url}/`, 'no key in the ready URL of a shared server');
  assert.equal((await call(engine.url, '/api/v1/health')).status, 200);
});
