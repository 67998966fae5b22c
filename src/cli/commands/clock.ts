import type { Command } from 'commander';
import type { AdvancedClock, Clock } from '../../shared/api-types.ts';
import { apiCommand } from '../options.ts';
import { sandboxClient, type ConnectionFlags } from '../client.ts';
import { parseDuration } from '../duration.ts';
import { formatSpan, printJson, say } from '../output.ts';

const describe = (c: Clock) =>
  `sandbox now ${c.now} (${c.offsetSeconds === 0 ? 'the real clock' : `${formatSpan(c.offsetSeconds)} ahead of the real clock`})`;

/** `sandbay clock advance <duration>` and `sandbay clock show` (SPEC §5.5). */
export function clockCommand(program: Command): void {
  const clock = program
    .command('clock')
    .description(
      'the sandbox clock: retries, expiries and reports run on it (token lifetimes and signature times stay on the real clock)',
    );
  apiCommand(
    clock,
    'advance <duration>',
    'move the sandbox clock forward (90s, 10m, 2h, 1d, 1h30m), running everything due on the way',
  ).action(async (duration: string, flags: ConnectionFlags) => {
    const seconds = parseDuration(duration);
    const client = await sandboxClient(flags);
    const result = await client.request<AdvancedClock>('POST', '/api/v1/sandbox/clock/advance', { body: { seconds } });
    if (flags.json) return printJson(result);
    say(
      `Advanced ${formatSpan(seconds)}: ${describe(result)}; ${result.jobsRun} due job${result.jobsRun === 1 ? '' : 's'} ran`,
    );
  });
  apiCommand(clock, 'show', "print the sandbox's now and its offset from the real clock").action(
    async (flags: ConnectionFlags) => {
      const result = await (await sandboxClient(flags)).request<Clock>('GET', '/api/v1/sandbox/clock');
      if (flags.json) return printJson(result);
      say(describe(result));
    },
  );
}
