import type { Command } from 'commander';

/**
 * What a command's --help shows beyond its flags, and docs/cli.md with it: examples, and notes worth knowing
 * (Markdown: code spans and links relative to docs/, which --help prints as plain text).
 */
export interface Guide {
  examples?: [command: string, what: string][];
  notes?: string[];
}

/** Guides by command path ("serve", "dlq replay"). */
export const guides: Record<string, Guide> = {
  serve: {
    examples: [
      ['sandbay serve', 'on http://127.0.0.1:4400, data kept in the platform data dir'],
      ['sandbay serve --port 0 --memory', 'any free port, nothing kept (tests, demos)'],
      ['sandbay serve --postgres --workers 4', 'team mode: four engine processes on a PostgreSQL server Sandbay runs'],
    ],
    notes: [
      "The data dir is `$XDG_DATA_HOME/sandbay` (default `~/.local/share/sandbay`) on Linux, `~/Library/Application Support/Sandbay` on macOS and `%APPDATA%\\Sandbay` on Windows, shared by the desktop app, `npm start` and `sandbay serve`. A second process on the same data dir exits naming the running one's URL; a lock left by a crashed one is taken over at once.",
      "Beyond loopback (`--host` a LAN address, or `0.0.0.0` in a container) the server is shared and needs `--admin-key` (better: `SANDBAY_ADMIN_KEY`; without it the key is [the data dir's own](team-mode.md#the-admin-key)). A shared server reaches only public receivers and the blocks `--allow-receivers` names ([the outbound policy](team-mode.md#what-a-shared-server-may-reach-the-outbound-policy)), and only the admin key creates sandboxes unless `--open-sandbox-creation` ([who creates sandboxes](team-mode.md#who-creates-sandboxes)).",
      '`--database-url`, `--postgres` and `--workers` are [team mode](team-mode.md); the pool and the timeouts bound every wait on the database ([timeouts and the pool](team-mode.md#timeouts-and-the-pool)).',
    ],
  },
  start: {
    examples: [['npm start -- --headless --port 0', 'the same engine and inspector as serve, from a checkout']],
  },
  listen: {
    examples: [
      ['sandbay listen', 'print every delivery of the sandbox as it happens'],
      [
        'sandbay listen --forward-to localhost:3000/hook',
        'also send them to your receiver, through a temporary endpoint',
      ],
      [
        "sandbay listen --forward 'order.*=localhost:3000/orders' --forward '*=localhost:4000/webhooks'",
        'route by topic: order events to one service, the rest to another (first match wins)',
      ],
      ['sandbay listen --forward-to localhost:3000/hook --print-response', "and show each receiver's answer"],
      [
        'sandbay listen --forward-to localhost:3000/hook --chaos duplicate=0.2,reorder=5s,delay=500ms --seed 7',
        'with duplicates, reordering and delays',
      ],
    ],
    notes: [
      'With --forward-to or --forward, the secret to verify with is printed first; Ctrl-C deletes the temporary endpoints.',
      "The secret is the sandbox's listen secret, the same on every run (kept per server and sandbox in " +
        'listen-secrets.json of the data dir, 0600), so your receiver keeps its configuration; --new-secret replaces it. ' +
        'A standard-webhooks-ed25519 key pair is new on each run.',
      'Each route is a temporary endpoint subscribed to the topics no earlier route took; every line names the route.',
    ],
  },
  check: {
    examples: [
      ['sandbay check localhost:3000/hook --secret whsec_…', 'score your receiver with the whole battery'],
      ['sandbay check --endpoint whe_… --junit check.xml', 'a registered endpoint, with a JUnit report for CI'],
    ],
  },
  trigger: {
    examples: [
      [
        'sandbay trigger order.placed --to localhost:3000/hook',
        "a realistic order.placed, signed with the sandbox's webhook test secret",
      ],
    ],
  },
  deliveries: {
    examples: [
      ['sandbay deliveries --status dead --topic order.placed', 'dead order.placed deliveries, newest first'],
      [
        "sandbay deliveries --har deliveries.har --topics 'order.*'",
        'the order deliveries as HAR 1.2, every attempt an entry',
      ],
    ],
    notes: [
      "A HAR file opens in a browser's network panel and in HTTP tools: see [Deliveries as HAR](portable.md#deliveries-as-har).",
    ],
  },
  resend: {
    examples: [
      ['sandbay resend dlv_…', 'attempt it again now'],
      ['sandbay resend dlv_… --override data.total=0.01', 'a new delivery with one field edited, signed afresh'],
      ['sandbay resend dlv_… --keep-id', 'the same deliveryId again: does the receiver process it once?'],
    ],
    notes: [
      'Without flags, resend attempts the same delivery again. An edit, `--new` or `--keep-id` sends a new delivery made ' +
        'from it instead, linked to it both ways; see [Resend in the CLI](decisions/resend-cli.md).',
    ],
  },
  'deliveries replay': {
    examples: [
      [
        "sandbay deliveries replay --topic 'order.*' --status failed,dead --since 2h --until 30m --dry-run",
        'what a replay of the last two hours of failed order deliveries would send, sending nothing',
      ],
      ['sandbay deliveries replay --status dead --endpoint whe_…', "one endpoint's dead deliveries, ten at a time"],
      [
        'sandbay deliveries replay --since 12h --to http://localhost:3001/webhooks',
        "last night's failures sent to your receiver on another port, signed with the endpoint's secret",
      ],
    ],
    notes: [
      '`sandbay replay` replays fixture files to a receiver; see [Replay by filter](decisions/replay-by-filter.md).',
      '`--to` sends new deliveries made from them (linked both ways, retried like any delivery); the original ' +
        'endpoint is left alone; see [Replay to another URL](decisions/replay-to-another-url.md).',
    ],
  },
  'dlq replay': {
    examples: [
      ['sandbay dlq replay dlv_…', 'one dead delivery'],
      [
        'sandbay dlq replay --all --topic order.placed',
        'every dead order.placed, ten at a time, followed until done (Ctrl-C cancels)',
      ],
    ],
  },
  verify: {
    examples: [
      [
        'sandbay verify --secret whsec_… --header "t=…,v1=…" --body-file body.json',
        'valid, or why not and the likeliest cause',
      ],
      [
        'sandbay verify --secret whsec_… --header "t=…,v1=…" --body-file body.json --language python',
        'and the fix, in Python',
      ],
    ],
  },
  'clock advance': {
    examples: [['sandbay clock advance 2h', 'a failing delivery goes through all five attempts into the DLQ']],
  },
  'jobs failed': {
    examples: [['sandbay jobs failed', 'each job set aside: its kind, its object, when it was due and why it failed']],
    notes: [
      'A job is set aside when its row cannot be processed (written by another version or a crafted sandbox file); ' +
        'every other job goes on. Repair the row, then `sandbay jobs retry fjb_…`; see ' +
        '[Failed jobs](decisions/failed-jobs.md).',
    ],
  },
  token: {
    examples: [
      ['TOKEN=$(sandbay token)', 'a fresh access token for the sandbox'],
      ['sandbay token --new --json', 'a new seeded sandbox, with every credential'],
    ],
    notes: [
      'On a shared server `--new` needs the admin key. `--json` shows the client secret in full only with `--new`: it is stored hashed, and shown once.',
    ],
  },
  export: {
    examples: [
      ['sandbay export --out demo.sandbay --notes "a failing receiver, three retries in"', 'the sandbox as one file'],
    ],
    notes: ['The file, its format and what an import checks: [Portable sandboxes](portable.md).'],
  },
  import: {
    examples: [
      [
        'sandbay import demo.sandbay --name demo',
        'a new sandbox, with new credentials, that behaves like the one exported',
      ],
    ],
  },
  'resume-imported': {
    examples: [['sandbay resume-imported --sandbox sbx_…', 'its endpoints call their receivers again']],
    notes: [
      'Endpoints turned off by hand or by a 410 Gone stay off; those the outbound policy refuses stay off and are ' +
        'named. Why one action: [decision](decisions/one-action-resumes-imported-endpoints.md).',
    ],
  },
  'fixtures record': {
    examples: [
      ["sandbay fixtures record --out fixtures.json --topics 'order.*'", 'the order deliveries in the log'],
      ['sandbay fixtures record --out fixtures.json --follow --count 10', 'the next ten deliveries'],
    ],
    notes: [
      'Replay them from your own tests with `sandbay replay` or `replayFixtures()`: [Replay recorded deliveries in your tests](receivers/testing.md#replay-recorded-deliveries-in-your-tests).',
    ],
  },
  replay: {
    examples: [
      [
        'sandbay replay fixtures.json --to localhost:3000/hook --secret whsec_…',
        'each fixture re-signed with your secret and a fresh timestamp',
      ],
    ],
  },
};

/** The command's path below `sandbay`: "dlq replay". */
export const pathOf = (cmd: Command): string => {
  const names: string[] = [];
  for (let c: Command | null = cmd; c?.parent; c = c.parent) names.unshift(c.name());
  return names.join(' ');
};

/** A paragraph wrapped to a terminal's width, without Markdown's backticks. */
function wrap(text: string, width = 100): string[] {
  const lines: string[] = [];
  for (const word of text
    .replaceAll('`', '')
    .replace(/\[([^\]]+)\]\([^)]+\)/g, '$1')
    .split(' ')) {
    if (lines.length && `${lines.at(-1)} ${word}`.length <= width) lines[lines.length - 1] += ` ${word}`;
    else lines.push(word);
  }
  return lines;
}

/** The guide as --help prints it after the flags. */
function helpText({ examples = [], notes = [] }: Guide): string {
  const width = Math.max(0, ...examples.map(([command]) => command.length));
  return [
    ...(examples.length
      ? ['', 'Examples:', ...examples.map(([command, what]) => `  $ ${command.padEnd(width)}  # ${what}`)]
      : []),
    ...notes.flatMap((note) => ['', ...wrap(note)]),
  ].join('\n');
}

/** Adds each command's guide to its --help. */
export function addGuides(program: Command): void {
  const visit = (cmd: Command) => {
    const guide = guides[pathOf(cmd)];
    if (guide) cmd.addHelpText('after', helpText(guide));
    cmd.commands.forEach(visit);
  };
  program.commands.forEach(visit);
}
