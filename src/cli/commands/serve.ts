import type { SandboxOptions } from '../../server/start.ts';
import { DataDirLockedError } from '../../server/instance-lock.ts';
import { CliError } from '../errors.ts';

export interface ServeFlags {
  port: string;
  host: string;
  allowHost: string[];
  dataDir?: string;
  memory?: boolean;
  quiet?: boolean;
}

export function parsePort(value: string): number {
  const port = Number(value);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new CliError(`--port must be 0–65535, not ${value}`);
  return port;
}

/** Runs the engine headless until SIGINT/SIGTERM; prints one ready line with the UI URL. */
export async function serve(flags: ServeFlags, note?: string): Promise<void> {
  const options: SandboxOptions = {
    port: parsePort(flags.port), host: flags.host, allowHosts: flags.allowHost,
    dataDir: flags.dataDir, memory: flags.memory, logRequests: !flags.quiet,
  };
  // The engine is loaded only here, when this process is to run it: `start` that opens the desktop
  // window and every client verb stay free of it.
  const { startSandbox } = await import('../../server/start.ts');
  let running;
  try {
    running = await startSandbox(options);
  } catch (err) {
    if (err instanceof DataDirLockedError) throw new CliError(err.message);
    if ((err as NodeJS.ErrnoException).code === 'EADDRINUSE') throw new CliError(`port ${flags.port} is in use; pass --port 0 for any free port`);
    throw err;
  }
  if (note) process.stdout.write(`${note}\n`);
  // The one deliberate secret in the output (SPEC §7): the ready URL carries the admin key.
  process.stdout.write(`Sandbay ready: ${running.readyUrl}  (data: ${running.dataDir ?? 'memory'})\n`);
  let closing = false;
  const shutdown = async (signal: string) => {
    if (closing) return;
    closing = true;
    process.stdout.write(`${signal}: shutting down; pending deliveries stay queued\n`);
    await running.close();
    process.exit(0);
  };
  process.on('SIGINT', () => void shutdown('SIGINT'));
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
}
