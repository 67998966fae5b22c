import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { pathToFileURL, fileURLToPath } from 'node:url';
import { test } from 'node:test';
// electron-builder's own loader and schema check (app-builder-lib is the package electron-builder runs).
import { getConfig, validateConfiguration } from 'app-builder-lib/out/util/config/config.js';
import type { Configuration } from 'app-builder-lib';
import { iconSizes, renderIcons, resources } from '../../scripts/icons.ts';
import { packageRoot } from '../../src/shared/node/package-root.ts';
import { linuxWindowIcon } from '../../src/main/window.ts';

const root = packageRoot();
let loaded: Promise<Configuration> | undefined;
const builderConfig = () => (loaded ??= getConfig(root, 'electron-builder.yml', null));

/** The repository's files (what a packaging run on a fresh checkout sees), as paths from the root. */
function repoFiles(dir = root): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    if (['node_modules', '.git', 'out', 'dist', 'release', '.cache'].includes(e.name)) return [];
    const path = join(dir, e.name);
    return e.isDirectory() ? repoFiles(path) : [relative(root, path)];
  });
}

/** electron-builder's globs, as far as this config uses them: `**`, `*` and literal names. */
const globToRegExp = (glob: string) =>
  new RegExp(
    `^${glob
      .split('**')
      .map((part) =>
        part
          .split('*')
          .map((s) => s.replace(/[.+?^${}()|[\]\\]/g, '\\$&'))
          .join('[^/]*'),
      )
      .join('.*')}$`,
  );

/** The `files` globs (getConfig normalises the list into `{ filter }` sets). */
const filePatterns = (config: Configuration): string[] =>
  ([config.files ?? []].flat() as (string | { filter?: string | string[] })[]).flatMap((f) =>
    typeof f === 'string' ? [f] : [f.filter ?? []].flat(),
  );

/** A PNG's size, from its IHDR chunk. */
const pngSize = (bytes: Buffer) => ({ width: bytes.readUInt32BE(16), height: bytes.readUInt32BE(20) });

test("electron-builder's config is valid by its own schema, and installers go to release/, apart from dist/", async () => {
  const config = await builderConfig();
  await validateConfiguration(config, { isEnabled: false, add() {} } as never);
  assert.equal(config.directories?.output, 'release');
  assert.equal(config.directories?.buildResources, 'resources');
  assert.match(readFileSync(join(root, '.gitignore'), 'utf8'), /^release\/$/m, 'installers are not committed');
  const exported = JSON.stringify(JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')).exports);
  assert.match(exported, /\.\/dist\//, "dist/ holds the package's exports, which installers must not overwrite");
});

test('every file and folder the packaging config names exists', async () => {
  const config = await builderConfig();
  assert.ok(statSync(join(root, config.directories!.buildResources!)).isDirectory());
  const icons = { mac: config.mac?.icon, win: config.win?.icon, linux: config.linux?.icon };
  for (const [platform, icon] of Object.entries(icons)) {
    assert.ok(icon, `${platform} names its icon`);
    assert.ok(existsSync(join(root, icon)), `${platform}: ${icon}`);
  }
  const linuxSet = join(root, icons.linux!);
  for (const size of iconSizes) {
    const file = join(linuxSet, `${size}x${size}.png`);
    assert.deepEqual(pngSize(readFileSync(file)), { width: size, height: size }, file);
  }
  assert.equal(readFileSync(join(root, icons.mac!)).subarray(0, 4).toString('latin1'), 'icns');
  assert.deepEqual([...readFileSync(join(root, icons.win!)).subarray(0, 4)], [0, 0, 1, 0], 'an ICO header');

  const files = repoFiles();
  const patterns = filePatterns(config).filter((p) => !p.startsWith('!'));
  for (const pattern of patterns) {
    // out/ is electron-vite's output (`npm run build`, the first step of `npm run package`).
    if (pattern.startsWith('out/')) continue;
    assert.ok(
      files.some((f) => globToRegExp(pattern).test(f)),
      `files: ${pattern} matches nothing`,
    );
  }
  assert.ok(patterns.includes('out/**'));
  assert.equal(
    join(config.extraMetadata?.main),
    join(JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')).main),
    'the app starts the main bundle',
  );
});

test('the Linux window icon the main process loads exists and ships inside the app', async () => {
  const bundledMain = pathToFileURL(join(root, 'out', 'main', 'index.js'));
  const icon = fileURLToPath(new URL(linuxWindowIcon, bundledMain));
  assert.deepEqual(pngSize(readFileSync(icon)), { width: 512, height: 512 });
  const config = await builderConfig();
  assert.ok(
    filePatterns(config).some((p) => globToRegExp(p).test(relative(root, icon))),
    'electron-builder packs it',
  );
});

test('the committed icons are what `npm run icons` renders from resources/icon.svg', () => {
  for (const [name, bytes] of renderIcons()) {
    assert.ok(readFileSync(join(resources, name)).equals(bytes), `${name} is stale: run npm run icons`);
  }
});
