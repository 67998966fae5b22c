import assert from 'node:assert/strict';
import { join } from 'node:path';
import { test } from 'node:test';
import { runDesktop, type Engine } from '../../src/main/desktop.ts';
import { desktopOptions } from '../../src/main/flags.ts';
import { configChannel } from '../../src/preload/channel.ts';
import type { SandboxOptions } from '../../src/server/start.ts';
import { defaultDataDir } from '../../src/server/data-dir.ts';
import { standInElectron, StandInWindow } from '../helpers/electron-stand-in.ts';

function fakeEngine(port = 4400) {
  const url = `http://127.0.0.1:${port}`;
  const engine = {
    url,
    readyUrl: `${url}/?key=sbk_secret`,
    adminKey: 'sbk_secret',
    closed: 0,
    close: async () => void engine.closed++,
  };
  return engine;
}

function launch(hasLock = true, start?: (options: SandboxOptions) => Promise<Engine>) {
  const stand = standInElectron(hasLock);
  const engine = fakeEngine();
  const started: SandboxOptions[] = [];
  const done = runDesktop(stand.electron, {
    startEngine:
      start ??
      (async (options) => {
        started.push(options);
        return engine;
      }),
    options: desktopOptions(['--data-dir', '/tmp/sandbay-desktop-test']),
    preloadPath: '/app/out/preload/index.js',
    icon: '/app/resources/icons/512x512.png',
  });
  stand.app.ready();
  return { ...stand, engine, started, done };
}

test('the first instance starts the engine on the data dir and opens its ready URL', async () => {
  const { started, done, app } = launch();
  await done;
  assert.deepEqual(started, [{ port: 4400, dataDir: '/tmp/sandbay-desktop-test', memory: false, logRequests: false }]);
  assert.deepEqual(StandInWindow.created[0].loaded, ['http://127.0.0.1:4400/?key=sbk_secret']);
  assert.equal(
    StandInWindow.created[0].options.icon,
    '/app/resources/icons/512x512.png',
    'the window gets the icon it is given',
  );
  assert.equal(app.quitCalls, 0);
});

test('a second instance quits at once and the first one comes to the front', async () => {
  const second = launch(false);
  await second.done;
  assert.equal(second.app.quitCalls, 1);
  assert.deepEqual(second.started, [], 'no second engine on the same data dir');
  assert.equal(StandInWindow.created.length, 0);

  const first = launch();
  await first.done;
  const window = StandInWindow.created[0];
  window.minimized = true;
  first.app.emit('second-instance');
  assert.equal(window.minimized, false);
  assert.equal(window.focused, 1);
});

test('quitting closes the engine before the process ends (pending deliveries stay queued)', async () => {
  const { app, engine, done } = launch();
  await done;
  app.quit();
  assert.equal(app.quitCompleted, false, 'the first quit waits for the engine');
  await new Promise((r) => setImmediate(r));
  assert.equal(engine.closed, 1);
  assert.equal(app.quitCompleted, true);
  app.emit('window-all-closed');
  assert.equal(engine.closed, 1, 'closed once');
});

test('closing the window quits the app', async () => {
  const { app, done } = launch();
  await done;
  app.emit('window-all-closed');
  assert.equal(app.quitCalls, 1);
});

test('the preload gets the API base and admin key only for pages of the app', async () => {
  const { ipcRequest, done } = launch();
  await done;
  assert.deepEqual(ipcRequest(configChannel, 'http://127.0.0.1:4400/sandboxes/x/deliveries'), {
    apiBase: 'http://127.0.0.1:4400',
    adminKey: 'sbk_secret',
  });
  assert.equal(ipcRequest(configChannel, 'https://evil.example/'), null);
  assert.equal(ipcRequest(configChannel, null), null);
});

test('an engine that cannot start is reported in a dialog and the app exits', async () => {
  const { errors, app, done } = launch(true, async () => {
    throw new Error('Another Sandbay (pid 42) is already using this data dir at http://127.0.0.1:4400.');
  });
  await done;
  assert.equal(errors.length, 1);
  assert.match(errors[0][1], /already using this data dir at http:\/\/127\.0\.0\.1:4400/);
  assert.equal(app.exited, 1);
});

test('a busy default port falls back to any free port', async () => {
  const ports: (number | undefined)[] = [];
  const { done } = launch(true, async (options) => {
    ports.push(options.port);
    if (options.port === 4400) throw Object.assign(new Error('listen EADDRINUSE'), { code: 'EADDRINUSE' });
    return fakeEngine(41234);
  });
  await done;
  assert.deepEqual(ports, [4400, 0]);
  assert.deepEqual(StandInWindow.created[0].loaded, ['http://127.0.0.1:41234/?key=sbk_secret']);
});

test('desktop flags: the shared data dir resolver by default, --memory, --port', () => {
  const env = { XDG_DATA_HOME: '/home/u/.data' };
  assert.equal(desktopOptions([], env).dataDir, defaultDataDir(env));
  if (process.platform === 'linux') assert.equal(desktopOptions([], env).dataDir, join('/home/u/.data', 'sandbay'));
  assert.deepEqual(desktopOptions(['--memory', '--port', '0'], env), { port: 0, memory: true, dataDir: undefined });
  assert.equal(desktopOptions(['--otlp-endpoint', 'http://127.0.0.1:4318'], env).otlpEndpoint, 'http://127.0.0.1:4318');
  assert.equal(desktopOptions(['--port', 'nope'], env).port, 4400);
});
