import assert from 'node:assert/strict';
import { test } from 'node:test';
import { call, useEngine } from '../../helpers/engine.ts';

// --host 0.0.0.0 is how Docker users expose Sandbay; the URL printed and written for the CLI stays loopback.
const engine = useEngine({ host: '0.0.0.0' });

test('a wildcard bind still reports a loopback URL, and that URL works', async () => {
  assert.match(engine.url, /^http:\/\/127\.0\.0\.1:\d+$/);
  assert.ok(engine.running.readyUrl.startsWith(`${engine.url}/?key=`));
  assert.equal((await call(engine.url, '/api/v1/health')).status, 200);
});
