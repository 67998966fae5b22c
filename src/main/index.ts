// The Electron main process: OS glue around the one engine (DESIGN.md); the logic lives in
// desktop.ts and window.ts, which take Electron as a parameter so they are unit-tested.
import * as electron from 'electron';
import { fileURLToPath } from 'node:url';
import { startSandbox } from '../server/start.ts';
import { runDesktop } from './desktop.ts';
import { desktopOptions } from './flags.ts';
import { linuxWindowIcon, windowIcon } from './window.ts';

for (const signal of ['SIGINT', 'SIGTERM'] as const) process.on(signal, () => electron.app.quit());

runDesktop(electron, {
  startEngine: startSandbox,
  // argv: [electron, --js-flags=…, app path, ...flags from `npm start -- …`] (start.ts): the path is a positional
  options: desktopOptions(process.argv.slice(2)),
  preloadPath: fileURLToPath(new URL('../preload/index.js', import.meta.url)),
  // out/main/index.js → resources/ at the package root (electron-builder.yml ships this file in the app).
  icon: windowIcon(process.platform, fileURLToPath(new URL(linuxWindowIcon, import.meta.url))),
  log: (message) => console.error(`sandbay: ${message}`),
}).catch((err) => {
  // Past the engine's start, which shows its own dialog: a failure here leaves no window, so the app ends.
  console.error(`sandbay: ${(err as Error)?.message ?? err}`);
  electron.app.exit(1);
});
