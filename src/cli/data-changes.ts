import { readFileSync } from 'node:fs';
import type { Command } from 'commander';
import { CliError } from './errors.ts';

/** What `sandbay trigger` sends in the test webhook's body: a JSON merge patch, then JSON Patch operations. */
export interface DataChanges {
  data?: Record<string, unknown>;
  patch?: { op: 'add' | 'replace' | 'remove'; path: string; value?: unknown }[];
}

const escape = (key: string) => key.replace(/~/g, '~0').replace(/\//g, '~1');

/**
 * A path as users write it, Stripe CLI style, to a JSON Pointer into the data: `data.items[0].quantity`,
 * `items[0].quantity`, `data["a.b"]` and `/items/0/quantity` all work.
 */
export function pointerOf(path: string): string {
  if (path.startsWith('/')) return path;
  const segments: string[] = [];
  const pattern = /\.?([^.[\]"]+)|\[(\d+|-)\]|\["((?:[^"\\]|\\.)*)"\]/gy;
  let at = 0;
  for (let match = pattern.exec(path); match && match.index === at; match = pattern.exec(path)) {
    segments.push(match[1] ?? match[2] ?? JSON.parse(`"${match[3]}"`));
    at = pattern.lastIndex;
  }
  if (at !== path.length || segments.length === 0)
    throw new CliError(`cannot read the path ${path}: write it as data.items[0].quantity`);
  if (segments[0] === 'data') segments.shift();
  if (segments.length === 0) throw new CliError(`${path} names the whole data: use --data for that`);
  return segments.map((s) => `/${escape(s)}`).join('');
}

/** A value as typed: JSON when it parses (10.5, true, null, "quoted", {...}), else the text itself. */
export function valueOf(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

function assignment(flag: string, text: string): { path: string; value: unknown } {
  const eq = text.indexOf('=');
  if (eq <= 0) throw new CliError(`${flag} takes PATH=VALUE, e.g. ${flag} data.total=10.5 (not ${text})`);
  return { path: pointerOf(text.slice(0, eq)), value: valueOf(text.slice(eq + 1)) };
}

/** `--data @file.json` or `--data '{"total": 1}'`: a JSON object merged over the sample's data. */
function dataOf(text: string): Record<string, unknown> {
  let json = text;
  if (text.startsWith('@')) {
    try {
      json = readFileSync(text === '@-' ? 0 : text.slice(1), 'utf8');
    } catch (err) {
      throw new CliError(
        `cannot read ${text.slice(1)}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`,
      );
    }
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(json);
  } catch (err) {
    throw new CliError(`--data is not JSON: ${(err as Error).message}`);
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed))
    throw new CliError("--data must be a JSON object (merged over the sample's data)");
  return parsed as Record<string, unknown>;
}

/** One of --override, --add, --remove as given, numbered so the three keep their command-line order. */
interface DataFlag {
  op: 'replace' | 'add' | 'remove';
  text: string;
  order: number;
}

let flagsSeen = 0;

/** A commander collector for --override/--add/--remove: each value remembers where it came on the command line. */
const collectDataFlag =
  (op: DataFlag['op']) =>
  (text: string, previous: DataFlag[] = []): DataFlag[] => [...previous, { op, text, order: flagsSeen++ }];

const flagName = { replace: '--override', add: '--add', remove: '--remove' } as const;

/** The changes the trigger flags ask for: --data first (a merge), then the path flags in the order given. */
export function dataChanges(flags: DataChangeFlags): DataChanges {
  const patch = [...(flags.override ?? []), ...(flags.add ?? []), ...(flags.remove ?? [])]
    .sort((a, b) => a.order - b.order)
    .map((f) =>
      f.op === 'remove' ? { op: f.op, path: pointerOf(f.text) } : { op: f.op, ...assignment(flagName[f.op], f.text) },
    );
  return { ...(flags.data !== undefined ? { data: dataOf(flags.data) } : {}), ...(patch.length > 0 ? { patch } : {}) };
}

/** The flags that change a payload's data, as `trigger` and `resend` share them: `whose` is the data they change. */
export function dataChangeOptions(command: Command, whose: string): Command {
  return command
    .option(
      '--override <path=value>',
      `set a field ${whose} has, e.g. data.total=10.5 or data.variants[0].price=3 (repeatable)`,
      collectDataFlag('replace'),
    )
    .option('--add <path=value>', `add a field ${whose} lacks, e.g. data.note=hi (repeatable)`, collectDataFlag('add'))
    .option('--remove <path>', 'remove a field, e.g. data.note (repeatable)', collectDataFlag('remove'))
    .option('--data <json>', `a JSON object merged over ${whose}'s data (RFC 7396): inline, or @file.json`)
    .addHelpText(
      'after',
      '\n--data is merged first, then --override, --add and --remove apply in the order given. Values are JSON when they\n' +
        "parse (10.5, true, null, '\"123\"'), else text. The result is checked against the topic's schema before anything is\n" +
        'sent: a mismatch is refused, naming the path.',
    );
}

/** The flags of dataChangeOptions as commander parses them. */
export interface DataChangeFlags {
  data?: string;
  override?: DataFlag[];
  add?: DataFlag[];
  remove?: DataFlag[];
}
