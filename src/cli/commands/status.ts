import type { Command } from 'commander';
import { knownServers } from '../../server/locate-server.ts';
import { serverRegistryDir } from '../../server/server-registry.ts';
import { printJson, say, table } from '../output.ts';

/**
 * `sandbay status [--json]`: the Sandbays running on this machine for this user, as the other verbs
 * find them (docs/cli.md, "Finding the server"). It reads the registry only: no request, no token.
 */
export function statusCommand(program: Command): void {
  program
    .command('status')
    .description('list the Sandbays running on this machine (the ones the other verbs find without --url)')
    .option(
      '--json',
      'print machine-readable JSON ({ data: [{ url, publicUrl, port, pid, dataDir, memory, startedAt }] })',
    )
    .action((flags: { json?: boolean }) => {
      // Never the admin key: the registry keeps it for the verbs, and a listing is pasted into issues.
      const servers = knownServers().map(({ url, publicUrl, port, pid, dataDir, memory, startedAt }) => ({
        url,
        publicUrl: publicUrl ?? null,
        port,
        pid,
        dataDir,
        memory,
        startedAt: startedAt || null,
      }));
      if (flags.json) return printJson({ data: servers });
      if (servers.length === 0) return say(`No Sandbay is running (registry: ${serverRegistryDir()}).`);
      const data = (s: (typeof servers)[number]) =>
        s.memory ? `memory${s.dataDir ? ` (--data-dir ${s.dataDir})` : ''}` : (s.dataDir ?? '');
      for (const line of table(
        ['url', 'data', 'pid', 'started'],
        servers.map((s) => [s.url, data(s), String(s.pid), s.startedAt ?? '']),
      ))
        say(line);
      if (servers.length > 1)
        say(`${servers.length} servers: the other verbs need --url URL or --data-dir DIR to pick one.`);
    });
}
