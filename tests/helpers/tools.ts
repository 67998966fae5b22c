import { accessSync, constants, statSync } from 'node:fs';
import { delimiter, join } from 'node:path';

/** A program some tests need that npm cannot install (a browser, an interpreter). */
export interface Tool {
  /** What it is, for the message: "Chromium". */
  what: string;
  /** Names to look for on PATH, in order of preference. */
  names: string[];
  /** An environment variable that names the binary instead (checked first). */
  envVar?: string;
  /** How to get it, e.g. "apt-get install chromium". */
  install: string;
}

/** A missing tool: its message is the whole story (one line), so no stack trace is printed. */
export class MissingTool extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'MissingTool';
    this.stack = message;
  }
}

function isExecutable(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return statSync(path).isFile();
  } catch {
    return false;
  }
}

/** The first of `names` found as an executable on PATH. */
export function findExecutable(names: string[], path = process.env.PATH ?? ''): string | undefined {
  for (const name of names) {
    if (name.includes('/')) {
      if (isExecutable(name)) return name;
      continue;
    }
    for (const dir of path.split(delimiter)) {
      if (dir && isExecutable(join(dir, name))) return join(dir, name);
    }
  }
  return undefined;
}

/** The tool's path, or a MissingTool naming what to install (thrown at once, never a hang). */
export function requireTool(tool: Tool, env: NodeJS.ProcessEnv = process.env): string {
  const named = tool.envVar ? env[tool.envVar] : undefined;
  if (named) {
    if (isExecutable(named)) return named;
    throw new MissingTool(
      `${tool.envVar}=${named} is not an executable file: point it at ${tool.what}, or unset it to search PATH for ${tool.names.join(', ')}`,
    );
  }
  const found = findExecutable(tool.names, env.PATH ?? '');
  if (found) return found;
  throw new MissingTool(
    `this test needs ${tool.what} (${tool.names.join(' or ')} on PATH${tool.envVar ? `, or ${tool.envVar}` : ''}): ${tool.install}`,
  );
}

/** The tools the tests use beyond Node, with their Debian packages (what .ci/run installs). */
export const tools = {
  chromium: {
    what: 'Chromium',
    names: ['chromium', 'chromium-browser', 'google-chrome-stable', 'google-chrome'],
    envVar: 'CHROMIUM_PATH',
    install: 'apt-get install chromium (Debian), or set CHROMIUM_PATH to a Chrome or Chromium binary',
  },
  python: { what: 'Python 3', names: ['python3'], install: 'apt-get install python3' },
  go: { what: 'Go', names: ['go'], install: 'apt-get install golang-go' },
  php: { what: 'PHP', names: ['php'], install: 'apt-get install php-cli' },
  curl: { what: 'curl', names: ['curl'], install: 'apt-get install curl' },
  bash: { what: 'bash', names: ['bash'], install: 'apt-get install bash' },
} satisfies Record<string, Tool>;
