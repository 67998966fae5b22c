import type { Command } from 'commander';

/** For repeatable options: collects every value. */
export const collect = (value: string, previous: string[] = []) => [...previous, value];

/** The connection flags every API verb shares (SPEC §6): where Sandbay is, as whom, and how to answer. */
export const connectionOptions: readonly [flags: string, description: string][] = [
  ['--url <url>', 'the Sandbay to talk to (SANDBAY_URL; default: the one running, else http://127.0.0.1:4400)'],
  ['--token <token>', "a sandbox access token, or the admin key (SANDBAY_TOKEN; default: the running app's admin key)"],
  ['--sandbox <id>', 'with the admin key, the sandbox to act on (SANDBAY_SANDBOX; default: the only one)'],
  [
    '--data-dir <dir>',
    'the Sandbay started with serve --data-dir DIR, --memory or not (SANDBAY_DATA_DIR; default: the one running)',
  ],
  ['--timeout <seconds>', 'give up on a request after this long (SANDBAY_TIMEOUT; default 30)'],
  ['--json', 'print machine-readable JSON'],
];

/** Adds a subcommand with the connection flags every API verb shares. */
export function apiCommand(parent: Command, nameAndArgs: string, description: string): Command {
  const cmd = parent.command(nameAndArgs).description(description);
  for (const [flags, text] of connectionOptions) cmd.option(flags, text);
  return cmd;
}

/** As the Stripe CLI does, `localhost:3000/hook` means http://localhost:3000/hook. */
export const withScheme = (url: string) => (/^[a-z][a-z\d+.-]*:\/\//i.test(url) ? url : `http://${url}`);
