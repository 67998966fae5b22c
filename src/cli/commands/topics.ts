import type { Command } from 'commander';
import { categories, categoryOf, topicCategories, topics } from '../../shared/topics.ts';
import { printJson, say, table } from '../output.ts';

/**
 * `sandbay topics [--json]`: the 33 topics by category (SPEC §5.6). The list is the one the
 * engine is built from (src/shared), so it needs no running Sandbay and no token.
 */
export function topicsCommand(program: Command): void {
  program
    .command('topics')
    .description('list the 33 webhook topics by category')
    .option('--json', 'print machine-readable JSON ({ data: [{ topic, category }] })')
    .action((flags: { json?: boolean }) => {
      if (flags.json) return printJson({ data: topics.map((topic) => ({ topic, category: categoryOf(topic) })) });
      for (const line of table(
        ['category', 'topics'],
        categories.map((c) => [c, topicCategories[c].join(', ')]),
      ))
        say(line);
      say(
        `${topics.length} topics. Subscribe to one, to <category>.* or to *; payload schemas: GET /api/v1/webhooks/topics.`,
      );
    });
}
