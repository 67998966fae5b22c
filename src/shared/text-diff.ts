import { utf8Length } from './hmac.ts';

/** Where two texts first differ, located the way an editor shows it. */
export interface TextDifference {
  /** UTF-16 index of the first differing character. */
  index: number;
  /** The same position in UTF-8 bytes (what a receiver's buffer counts). */
  byteOffset: number;
  /** 1-based line and column of that position in `actual`. */
  line: number;
  column: number;
  /** A few characters around the position in each text, with control characters made visible. */
  expected: string;
  actual: string;
}

// Escapes as a developer would write them, so invisible differences (CR, BOM) show.
const visible = (text: string) =>
  text
    .replace(/\r/g, '\\r')
    .replace(/\n/g, '\\n')
    .replace(/\t/g, '\\t')
    .replace(/\uFEFF/g, '\\uFEFF');

/** The first position where `actual` departs from `expected`, or undefined when they are equal. */
export function firstDifference(expected: string, actual: string, context = 16): TextDifference | undefined {
  if (expected === actual) return undefined;
  let index = 0;
  while (index < expected.length && index < actual.length && expected[index] === actual[index]) index++;
  const before = actual.slice(0, index);
  const lines = before.split('\n');
  const snippet = (text: string) => visible(text.slice(Math.max(0, index - context), index + context));
  return {
    index,
    byteOffset: utf8Length(before),
    line: lines.length,
    column: lines[lines.length - 1].length + 1,
    expected: snippet(expected),
    actual: snippet(actual),
  };
}
