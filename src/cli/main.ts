import { Command, Option } from 'commander';
import { CliError } from './errors.ts';
import { checkCommand } from './commands/check.ts';
import { clockCommand } from './commands/clock.ts';
import { jobsCommand } from './commands/jobs.ts';
import { deliveriesCommand } from './commands/deliveries.ts';
import { dlqCommand } from './commands/dlq.ts';
import { listenCommand } from './commands/listen.ts';
import { resendCommand } from './commands/resend.ts';
import { resetCommand } from './commands/reset.ts';
import { tokenCommand } from './commands/token.ts';
import { topicsCommand } from './commands/topics.ts';
import { statusCommand } from './commands/status.ts';
import { triggerCommand } from './commands/trigger.ts';
import { verifyCommand } from './commands/verify.ts';
import { portableCommands } from './commands/portable.ts';
import { fixturesCommands } from './commands/fixtures.ts';
import { addGuides } from './guides.ts';
import { collect } from './options.ts';
import { packageVersion } from '../shared/node/package-root.ts';

/** Commander's usage error on one line: "unknown command 'trigerr' — did you mean trigger?". */
function oneLineUsageError(text: string): string {
  return text
    .replace(/^error: /, '')
    .trimEnd()
    .replace(/\s*\n\(Did you mean (.+)\?\)$/, ' — did you mean $1?')
    .replace(/\s*\n\s*/g, ' ');
}

function serverOptions(cmd: Command): Command {
  return (
    cmd
      .option('--port <n>', 'port to listen on (0 = any free port)', '4400')
      .option('--host <address>', 'address to bind', '127.0.0.1')
      .option('--allow-host <name>', 'extra Host name to accept, e.g. host.docker.internal (repeatable)', collect, [])
      .addOption(
        new Option('--public-url <url>', 'the URL users and receivers see, e.g. behind a load balancer').env(
          'SANDBAY_PUBLIC_URL',
        ),
      )
      .addOption(
        new Option('--admin-key <key>', 'the admin key (required beyond loopback; at least 32 characters)').env(
          'SANDBAY_ADMIN_KEY',
        ),
      )
      .addOption(
        new Option(
          '--allow-receivers <cidrs>',
          'shared server: address blocks receivers may be in besides public ones, e.g. 10.20.0.0/16,fd00::/8',
        ).env('SANDBAY_ALLOW_RECEIVERS'),
      )
      // Not .env(): commander would read SANDBAY_OPEN_SANDBOX_CREATION=0 as on; serve reads the variable itself.
      .option(
        '--open-sandbox-creation',
        'shared server: let anyone create a sandbox (SANDBAY_OPEN_SANDBOX_CREATION=1; default: the admin key only)',
      )
      .addOption(
        new Option('--data-dir <dir>', 'data directory (default: the platform data dir)').env('SANDBAY_DATA_DIR'),
      )
      .option('--memory', 'keep no files (tests and demos)')
      .option('--quiet', 'do not log each request')
      .option(
        '--otlp-endpoint <url>',
        'export a span per delivery attempt over OTLP/HTTP to this collector, e.g. http://localhost:4318 ' +
          '(default: OTEL_EXPORTER_OTLP_ENDPOINT; off when unset)',
      )
  );
}

/** The whole `sandbay` command: every verb and flag (scripts/cli-docs.ts writes docs/cli.md from it). */
export const program = new Command('sandbay')
  .description('Sandbay: a local commerce sandbox with signed webhooks and a live delivery inspector.')
  .version(packageVersion(), '-v, --version', 'print the Sandbay version')
  // Needed for `deliveries replay`: a command's options are its own, not also its subcommands'.
  .enablePositionalOptions()
  // Usage errors are one line too, like every other failure; commander's "(Did you mean …?)" joins it.
  .configureOutput({ outputError: (text, write) => write(`sandbay: ${oneLineUsageError(text)} (--help for usage)\n`) });

// The engine is imported only by the verbs that run it, so the client verbs start fast.
serverOptions(program.command('serve').description('run the engine headless and serve the inspector UI'))
  .addOption(
    new Option(
      '--database-url <url>',
      'run on this PostgreSQL server (postgres://…) instead of the built-in PGlite',
    ).env('SANDBAY_DATABASE_URL'),
  )
  .addOption(
    new Option('--postgres', 'run on a PostgreSQL server Sandbay manages in its data dir').conflicts('databaseUrl'),
  )
  .option('--workers <n>', 'engine processes sharing the port, one per core (needs --postgres or --database-url)')
  .addOption(
    new Option('--pool-size <n>', 'PostgreSQL connections per engine process (default 10)').env('SANDBAY_POOL_SIZE'),
  )
  .addOption(
    new Option('--connect-timeout <duration>', 'give up opening a PostgreSQL connection after this (default 5s)').env(
      'SANDBAY_CONNECT_TIMEOUT',
    ),
  )
  .addOption(
    new Option(
      '--statement-timeout <duration>',
      "PostgreSQL's statement_timeout for the engine's sessions (default 10s)",
    ).env('SANDBAY_STATEMENT_TIMEOUT'),
  )
  .addOption(
    new Option('--lock-timeout <duration>', "PostgreSQL's lock_timeout for the engine's sessions (default 5s)").env(
      'SANDBAY_LOCK_TIMEOUT',
    ),
  )
  .addOption(
    new Option(
      '--idle-in-transaction-timeout <duration>',
      "PostgreSQL's idle_in_transaction_session_timeout (default 30s)",
    ).env('SANDBAY_IDLE_IN_TRANSACTION_TIMEOUT'),
  )
  .action(async (flags) => (await import('./commands/serve.ts')).serve(flags));

serverOptions(
  program.command('start').description('open the desktop app, or run headless where Electron is not installed'),
)
  .addOption(new Option('--headless', 'never open the desktop window'))
  .action(async (flags) => (await import('./commands/start.ts')).start(flags));

for (const register of [
  listenCommand,
  checkCommand,
  triggerCommand,
  deliveriesCommand,
  resendCommand,
  dlqCommand,
  verifyCommand,
  clockCommand,
  jobsCommand,
  resetCommand,
  tokenCommand,
  topicsCommand,
  statusCommand,
  portableCommands,
  fixturesCommands,
]) {
  register(program);
}
addGuides(program);

/** Runs the command line; every failure ends the process with one line and exit code 1. */
export async function run(argv: string[] = process.argv): Promise<void> {
  // A reader that stops early (`sandbay deliveries --json | head -1`) is not a failure: end quietly, as
  // git and grep do, instead of crashing on the write that found the pipe closed.
  process.stdout.on('error', (err: NodeJS.ErrnoException) => {
    if (err.code === 'EPIPE') process.exit(0);
    throw err;
  });
  try {
    await program.parseAsync(argv);
  } catch (err) {
    const message = err instanceof CliError ? err.message : ((err as Error)?.message ?? String(err));
    process.stderr.write(`sandbay: ${message}\n`);
    process.exit(1);
  }
}
