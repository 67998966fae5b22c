import type { Command } from 'commander';
import type { ResetResult } from '../../shared/api-types.ts';
import { apiCommand } from '../options.ts';
import { sandboxClient, type ConnectionFlags } from '../client.ts';
import { printJson, say } from '../output.ts';

/** `sandbay reset [--all]`: factory defaults for the sandbox (SPEC §3). */
export function resetCommand(program: Command): void {
  apiCommand(program, 'reset', 'restore the sandbox to its seed data, clock and an empty delivery log')
    .option('--all', 'also delete webhook endpoints and revoke every token (prints a fresh access token)')
    .action(async (flags: ConnectionFlags & { all?: boolean }) => {
      const client = await sandboxClient(flags);
      const result = await client.request<ResetResult>('POST', '/api/v1/sandbox/reset', {
        body: { scope: flags.all ? 'all' : 'data' },
      });
      if (flags.json) return printJson(result);
      const counts = Object.entries(result.counts)
        .map(([name, n]) => `${n} ${name}`)
        .join(', ');
      say(`Reset in ${Math.round(result.durationMs)} ms: ${counts}`);
      if (result.credentials) say(`Every token was revoked. New access token: ${result.credentials.accessToken}`);
    });
}
