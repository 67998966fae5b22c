import { Command, Option } from 'commander';
import { CliError } from './errors.ts';
import { serve } from './commands/serve.ts';
import { start } from './commands/start.ts';

const collect = (value: string, previous: string[]) => [...previous, value];

function serverOptions(cmd: Command): Command {
  return cmd
    .option('--port <n>', 'port to listen on (0 = any free port)', '4400')
    .option('--host <address>', 'address to bind', '127.0.0.1')
    .option('--allow-host <name>', 'extra Host name to accept, e.g. host.docker.internal (repeatable)', collect, [])
    .option('--data-dir <dir>', 'data directory (default: the platform data dir)')
    .option('--memory', 'keep no files (tests and demos)')
    .option('--quiet', 'do not log each request');
}

const program = new Command('sandbay')
  .description('Sandbay: a local commerce sandbox with signed webhooks and a live delivery inspector.')
  .showHelpAfterError()
  .configureOutput({ outputError: (text, write) => write(text) });

serverOptions(program.command('serve').description('run the engine headless and serve the inspector UI')).action((flags) => serve(flags));

serverOptions(program.command('start').description('open the desktop app, or run headless where Electron is not installed'))
  .addOption(new Option('--headless', 'never open the desktop window'))
  .action((flags, cmd: Command) => start(flags, cmd.args));

try {
  await program.parseAsync(process.argv);
} catch (err) {
  const message = err instanceof CliError ? err.message : (err as Error)?.message ?? String(err);
  process.stderr.write(`sandbay: ${message}\n`);
  process.exit(1);
}
