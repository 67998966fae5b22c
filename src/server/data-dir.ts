import { homedir } from 'node:os';
import { join } from 'node:path';

/**
 * The one data dir for desktop and headless alike (SPEC §1): Linux $XDG_DATA_HOME/sandbay
 * (default ~/.local/share/sandbay), macOS ~/Library/Application Support/Sandbay,
 * Windows %APPDATA%\Sandbay.
 */
export function defaultDataDir(
  env: NodeJS.ProcessEnv = process.env,
  platform: NodeJS.Platform = process.platform,
  home = homedir(),
): string {
  if (platform === 'darwin') return join(home, 'Library', 'Application Support', 'Sandbay');
  if (platform === 'win32') return join(env.APPDATA || join(home, 'AppData', 'Roaming'), 'Sandbay');
  return join(env.XDG_DATA_HOME || join(home, '.local', 'share'), 'sandbay');
}
