import { parseArgs } from 'node:util';
import { defaultDataDir } from '../server/data-dir.ts';

export interface DesktopOptions {
  port: number;
  dataDir?: string;
  memory: boolean;
  /** `--otlp-endpoint`: where attempt spans go (start.ts's otlpEndpoint). */
  otlpEndpoint?: string;
}

/**
 * The engine options from the desktop app's command line (`npm start -- --memory` passes
 * flags through): the same data dir resolver as headless mode (SPEC §1), never Electron's userData.
 */
export function desktopOptions(args: string[], env: NodeJS.ProcessEnv = process.env): DesktopOptions {
  const { values } = parseArgs({
    args,
    strict: false,
    allowPositionals: true,
    options: {
      port: { type: 'string' },
      'data-dir': { type: 'string' },
      memory: { type: 'boolean' },
      'otlp-endpoint': { type: 'string' },
    },
  });
  const port = Number(values.port ?? 4400);
  const memory = values.memory === true;
  return {
    port: Number.isInteger(port) && port >= 0 && port <= 65535 ? port : 4400,
    memory,
    dataDir: memory ? undefined : typeof values['data-dir'] === 'string' ? values['data-dir'] : defaultDataDir(env),
    ...(typeof values['otlp-endpoint'] === 'string' ? { otlpEndpoint: values['otlp-endpoint'] } : {}),
  };
}
