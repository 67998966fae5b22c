import assert from 'node:assert/strict';
import { test } from 'node:test';
import { dirname } from 'node:path';
import { findExecutable, MissingTool, requireTool, tools } from '../helpers/tools.ts';

test('a tool is found on PATH, or through its environment variable first', () => {
  const nodeDir = dirname(process.execPath);
  assert.equal(findExecutable(['no-such-tool', 'node'], nodeDir), process.execPath);
  assert.equal(requireTool({ what: 'Node', names: ['node'], install: 'x' }, { PATH: nodeDir }), process.execPath);
  assert.equal(requireTool(tools.chromium, { PATH: '', CHROMIUM_PATH: process.execPath }), process.execPath);
});

test('a missing tool fails at once with one line naming what to install, and no stack trace', () => {
  const missing = (run: () => unknown) => {
    try {
      run();
    } catch (err) {
      assert.ok(err instanceof MissingTool);
      assert.equal(err.stack, err.message, 'nothing but the message is printed');
      assert.ok(!err.message.includes('\n'));
      return err.message;
    }
    assert.fail('expected MissingTool');
  };
  assert.equal(
    missing(() => requireTool(tools.chromium, { PATH: '/nonexistent' })),
    'this test needs Chromium (chromium or chromium-browser or google-chrome-stable or google-chrome on PATH, or CHROMIUM_PATH): apt-get install chromium (Debian), or set CHROMIUM_PATH to a Chrome or Chromium binary',
  );
  assert.match(
    missing(() => requireTool(tools.chromium, { PATH: '', CHROMIUM_PATH: '/nope/chrome' })),
    /^CHROMIUM_PATH=\/nope\/chrome is not an executable file/,
  );
  assert.equal(
    missing(() => requireTool(tools.php, { PATH: '' })),
    'this test needs PHP (php on PATH): apt-get install php-cli',
  );
});
