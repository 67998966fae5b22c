// `npm run icons`: renders resources/icon.svg, the one source of the app icon, into what
// electron-builder and Linux desktops want. The outputs are committed, so packaging needs no
// build step: resources/icon.png (1024 px, electron-builder's default), resources/icons/NxN.png
// (the Linux icon set, also the window icon), resources/icon.icns (macOS), resources/icon.ico
// (Windows). tests/unit/packaging.test.ts fails when they no longer match the SVG.
import { Resvg } from '@resvg/resvg-js';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import png2icons from 'png2icons';

export const resources = join(import.meta.dirname, '..', 'resources');
/** The sizes of the Linux icon set: the hicolor theme's, and 1024 for high-density docks. */
export const iconSizes = [16, 24, 32, 48, 64, 128, 256, 512, 1024];

/** Every icon file, by its path under resources/, rendered from the SVG source. */
export function renderIcons(svg = readFileSync(join(resources, 'icon.svg'), 'utf8')): Map<string, Buffer> {
  // Each size is drawn from the vector source, so small ones stay crisp instead of being scaled down.
  const render = (size: number) =>
    new Resvg(svg, { fitTo: { mode: 'width', value: size }, font: { loadSystemFonts: false } }).render().asPng();
  const files = new Map(iconSizes.map((size) => [`icons/${size}x${size}.png`, render(size)]));
  const large = files.get('icons/1024x1024.png')!;
  files.set('icon.png', large);
  // BICUBIC2 keeps edges clean; 0 colours keeps full colour; the ICO is laid out for Windows executables.
  files.set('icon.icns', png2icons.createICNS(large, png2icons.BICUBIC2, 0)!);
  files.set('icon.ico', png2icons.createICO(large, png2icons.BICUBIC2, 0, false, true)!);
  return files;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  mkdirSync(join(resources, 'icons'), { recursive: true });
  const files = renderIcons();
  for (const [name, bytes] of files) writeFileSync(join(resources, name), bytes);
  console.log(`icons: ${files.size} files in ${resources}`);
}
