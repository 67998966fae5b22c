import assert from 'node:assert/strict';
import { test } from 'node:test';
import { openWindow, pinNavigation, windowIcon, windowOptions } from '../../src/main/window.ts';
import { StandInContents, standInElectron } from '../helpers/electron-stand-in.ts';

const origin = 'http://127.0.0.1:4400';

test('the window is isolated: context isolation and sandbox on, no Node integration, our preload', () => {
  const prefs = windowOptions('/app/out/preload/index.js').webPreferences!;
  assert.equal(prefs.contextIsolation, true);
  assert.equal(prefs.sandbox, true);
  assert.equal(prefs.nodeIntegration, false);
  assert.equal(prefs.nodeIntegrationInSubFrames, false);
  assert.equal(prefs.webviewTag, false);
  assert.equal(prefs.preload, '/app/out/preload/index.js');
});

test('navigation is pinned to the app origin; other links go to the system browser', async () => {
  const contents = new StandInContents();
  const opened: string[] = [];
  pinNavigation(contents, origin, async (url) => void opened.push(url));
  assert.equal(contents.navigate(`${origin}/sandboxes/sbx_1/deliveries`), true);
  assert.equal(contents.navigate('https://docs.stripe.com/webhooks'), false);
  assert.equal(contents.navigate('http://127.0.0.1:9999/elsewhere'), false, 'another port is another origin');
  assert.equal(contents.navigate('https://evil.example/', 'will-redirect'), false);
  assert.equal(contents.navigate('file:///etc/passwd'), false);
  assert.equal(contents.navigate('javascript:alert(1)'), false);
  assert.deepEqual(contents.openHandler!({ url: 'https://github.com/' }), { action: 'deny' });
  assert.deepEqual(contents.openHandler!({ url: 'file:///tmp/x' }), { action: 'deny' });
  assert.deepEqual(opened, [
    'https://docs.stripe.com/webhooks',
    'http://127.0.0.1:9999/elsewhere',
    'https://evil.example/',
    'https://github.com/',
  ]);
});

test('only clipboard writes are granted among web permissions', () => {
  const contents = new StandInContents();
  pinNavigation(contents, origin, async () => {});
  const ask = (permission: string) => {
    let granted: boolean | undefined;
    contents.permissionHandler!(contents, permission, (g) => (granted = g));
    return granted;
  };
  assert.equal(ask('clipboard-sanitized-write'), true);
  for (const p of ['media', 'geolocation', 'notifications', 'clipboard-read', 'openExternal'])
    assert.equal(ask(p), false, p);
});

test('the window opens the ready URL (which sets the admin cookie) and shows when ready', () => {
  const { electron } = standInElectron();
  const window = openWindow(electron, '/p.js', { url: origin, readyUrl: `${origin}/?key=sbk_x` });
  assert.deepEqual((window as any).loaded, [`${origin}/?key=sbk_x`]);
  (window as any).emit('ready-to-show');
  assert.equal((window as any).shown, true);
});

test('on Linux the window carries the app icon; macOS and Windows take it from the app bundle', () => {
  assert.equal(windowIcon('linux', '/app/resources/icons/512x512.png'), '/app/resources/icons/512x512.png');
  for (const platform of ['darwin', 'win32'] as const)
    assert.equal(windowIcon(platform, '/app/icon.png'), undefined, platform);
  assert.equal(windowOptions('/p.js', '/app/icon.png').icon, '/app/icon.png');
  assert.ok(!('icon' in windowOptions('/p.js')), 'no icon option at all when there is none');
  const { electron } = standInElectron();
  const window = openWindow(electron, '/p.js', { url: origin, readyUrl: origin }, '/app/icon.png');
  assert.equal((window as any).options.icon, '/app/icon.png');
});
