import assert from 'node:assert/strict';
import { join } from 'node:path';
import { test } from 'node:test';
import { defaultDataDir } from '../../src/server/data-dir.ts';

test('linux: $XDG_DATA_HOME/sandbay, else ~/.local/share/sandbay', () => {
  assert.equal(defaultDataDir({ XDG_DATA_HOME: '/xdg' }, 'linux', '/home/ada'), join('/xdg', 'sandbay'));
  assert.equal(defaultDataDir({}, 'linux', '/home/ada'), join('/home/ada', '.local', 'share', 'sandbay'));
  assert.equal(
    defaultDataDir({ XDG_DATA_HOME: '' }, 'linux', '/home/ada'),
    join('/home/ada', '.local', 'share', 'sandbay'),
    'empty counts as unset',
  );
  assert.equal(
    defaultDataDir({}, 'freebsd', '/home/ada'),
    join('/home/ada', '.local', 'share', 'sandbay'),
    'other unixes follow XDG',
  );
});

test('darwin: ~/Library/Application Support/Sandbay (XDG ignored)', () => {
  assert.equal(
    defaultDataDir({ XDG_DATA_HOME: '/xdg' }, 'darwin', '/Users/ada'),
    join('/Users/ada', 'Library', 'Application Support', 'Sandbay'),
  );
});

test('win32: %APPDATA%\\Sandbay, else the roaming profile under home', () => {
  assert.equal(
    defaultDataDir({ APPDATA: 'C:\\Users\\ada\\AppData\\Roaming' }, 'win32', 'C:\\Users\\ada'),
    join('C:\\Users\\ada\\AppData\\Roaming', 'Sandbay'),
  );
  assert.equal(defaultDataDir({}, 'win32', 'C:\\Users\\ada'), join('C:\\Users\\ada', 'AppData', 'Roaming', 'Sandbay'));
});
