// docs/cli.md is generated from the CLI's own definitions: a command or flag added, renamed or reworded in
// src/cli without `npm run docs:cli` fails here, with the command that fixes it.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import type { Command } from 'commander';
import { cliDoc, cliDocPath } from '../../scripts/cli-docs.ts';
import { program } from '../../src/cli/main.ts';

test('docs/cli.md is what `npm run docs:cli` generates from src/cli', () => {
  const committed = readFileSync(cliDocPath, 'utf8');
  const generated = cliDoc();
  if (committed === generated) return;
  const [at] = [...committed].map((c, i) => (c === generated[i] ? -1 : i)).filter((i) => i >= 0);
  const line = committed.slice(0, at ?? committed.length).split('\n').length;
  assert.fail(
    `docs/cli.md differs from the CLI's definitions from line ${line} on: run \`npm run docs:cli\` and commit docs/cli.md`,
  );
});

test('the reference names every command and every flag, with its description', () => {
  const doc = cliDoc();
  const visit = (cmd: Command, path: string[]) => {
    for (const sub of cmd.commands) {
      const names = [...path, sub.name()];
      assert.ok(doc.includes(`\`sandbay ${names.join(' ')}\``), `sandbay ${names.join(' ')}`);
      for (const option of sub.options)
        assert.ok(doc.includes(`\`${option.flags}\``), `${names.join(' ')} ${option.flags}`);
      visit(sub, names);
    }
  };
  visit(program, []);
  assert.match(doc, /\| `--forward-to <url>` \| — \| register a temporary endpoint at this URL/);
  assert.match(doc, /\| `--port <n>` \| `4400` \|/);
});

test('a flag changed in the CLI makes the generated reference differ from the committed one', () => {
  const serve = program.commands.find((c) => c.name() === 'serve')!;
  const port = serve.options.find((o) => o.long === '--port')!;
  const before = port.description;
  port.description = 'a reworded description';
  try {
    assert.notEqual(cliDoc(), readFileSync(cliDocPath, 'utf8'));
  } finally {
    port.description = before;
  }
});
