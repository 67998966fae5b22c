import type { Command } from 'commander';

/** For repeatable options: collects every value. */
export const collect = (value: string, previous: string[] = []) => [...previous, value];

/** Adds a subcommand with the connection flags every API verb shares (SPEC §6). */
export function apiCommand(parent: Command, nameAndArgs: string, description: string): Command {
  return parent
    .command(nameAndArgs)
    .description(description)
    .option('--url <url>', 'the Sandbay to talk to (SANDBAY_URL; default: the running app, else http://127.0.0.1:4400)')
    .option('--token <token>', 'a sandbox access token, or the admin key (SANDBAY_TOKEN; default: the running app\'s admin key)')
    .option('--sandbox <id>', 'with the admin key, the sandbox to act on (SANDBAY_SANDBOX; default: the only one)')
    .option('--timeout <seconds>', 'give up on a request after this long (SANDBAY_TIMEOUT; default 30)')
    .option('--json', 'print machine-readable JSON');
}

/** As the Stripe CLI does, `localhost:3000/hook` means http://localhost:3000/hook. */
export const withScheme = (url: string) => (/^[a-z][a-z\d+.-]*:\/\//i.test(url) ? url : `http://${url}`);
