import type { Command } from 'commander';
import type { CreatedSandbox, MintedToken } from '../../shared/api-types.ts';
import { apiCommand } from '../options.ts';
import { Client, resolveConnection, sandboxClient, type ConnectionFlags } from '../client.ts';
import { printJson, say } from '../output.ts';

interface TokenFlags extends ConnectionFlags {
  new?: boolean;
  name?: string;
  scope?: string;
  expiresIn?: string;
}

/**
 * A new sandbox: its credentials, and the note on stderr so stdout stays the token. No token is
 * needed on a laptop; a shared server's operator creates sandboxes with the admin key, which goes
 * along when the connection has one (the discovery file's, or --token).
 */
async function newSandbox(flags: TokenFlags): Promise<void> {
  const client = new Client(resolveConnection(flags));
  const created = await client.request<CreatedSandbox>('POST', '/api/v1/sandboxes', {
    body: flags.name ? { name: flags.name } : {},
  });
  if (flags.json)
    return printJson({
      sandboxId: created.sandbox.id,
      ...created.credentials,
      webhookTestSecret: created.webhookTestSecret,
    });
  process.stderr.write(
    `Created sandbox ${created.sandbox.id} (--json shows its client id, secret and webhook test secret)\n`,
  );
  say(created.credentials.accessToken);
}

/**
 * `sandbay token`: a fresh access token for a sandbox, of the sandbox's own OAuth client (SPEC §3),
 * minted by the API for the caller (its secret is shown only once, so the CLI never needs it);
 * `--new` creates the sandbox first.
 */
export function tokenCommand(program: Command): void {
  apiCommand(
    program,
    'token',
    'print an access token for a sandbox (--new creates one; --json prints every credential)',
  )
    .option('--new', 'create a new seeded sandbox and print its token')
    .option('--name <name>', 'with --new: the sandbox name')
    .option('--scope <scopes>', 'space-separated scopes (default: all)')
    .option(
      '--expires-in <seconds>',
      'a shorter lifetime, 1–3600 s on the real clock (a clock advance does not expire it), to rehearse expiry',
    )
    .action(async (flags: TokenFlags) => {
      if (flags.new) return newSandbox(flags);
      const client = await sandboxClient(flags);
      const [credentials, sandboxId] = await Promise.all([
        client.request<{ clientId: string; clientSecretHint: string; webhookTestSecret: string }>(
          'GET',
          '/api/v1/sandbox/credentials',
        ),
        client.connection.sandbox ?? client.request<{ id: string }>('GET', '/api/v1/sandbox').then((s) => s.id),
      ]);
      const body: Record<string, unknown> = {};
      if (flags.scope) body.scope = flags.scope;
      if (flags.expiresIn) body.expiresIn = /^\d+$/.test(flags.expiresIn) ? Number(flags.expiresIn) : flags.expiresIn;
      const token = await client.request<MintedToken>('POST', '/api/v1/sandbox/tokens', { body });
      if (!flags.json) return say(token.accessToken);
      printJson({ sandboxId, ...credentials, ...token });
    });
}
