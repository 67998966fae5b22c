import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parseDuration } from '../../src/cli/duration.ts';
import { CliError } from '../../src/cli/errors.ts';
import { formatSpan } from '../../src/cli/output.ts';

test('durations read like Go and the Stripe CLI: 90s, 2h, 1d, 1h30m, bare seconds', () => {
  const cases: [string, number][] = [
    ['90s', 90],
    ['2h', 7200],
    ['1d', 86_400],
    ['1h30m', 5400],
    ['1d2h3m4s', 93_784],
    ['45', 45],
    ['1.5h', 5400],
    [' 10M ', 600],
  ];
  for (const [text, seconds] of cases) assert.equal(parseDuration(text), seconds, text);
});

test('anything else is a CliError that shows the accepted forms', () => {
  for (const text of ['', 'h', '2x', '1h 30m', '30m1h', '1h1h', '-5s', '5s!', '0', '0s']) {
    assert.throws(
      () => parseDuration(text),
      (err: unknown) => err instanceof CliError,
      text,
    );
  }
});

test('spans print back compactly', () => {
  assert.deepEqual([0, 45, 90, 5400, 93_784, -30].map(formatSpan), ['0s', '45s', '1m30s', '1h30m', '1d2h', '30s']);
});
