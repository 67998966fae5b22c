import { parse, printParseErrorCode, type ParseError } from 'jsonc-parser';

// V8's JSON.parse messages either give a character offset or echo up to ~40 characters of the
// body ("Unexpected token 'x', "{…" is not valid JSON"). An editor-style line and column says
// where to look without reflecting the client's bytes, so a failed parse is scanned again by
// jsonc-parser (strict: no comments, no trailing commas) to find the first error.

// Keyed by printParseErrorCode's names: the codes are a const enum, which isolated modules cannot read.
const wording: Record<string, string> = {
  InvalidSymbol: 'unexpected character',
  InvalidNumberFormat: 'malformed number',
  PropertyNameExpected: 'expected a double-quoted property name',
  ValueExpected: 'expected a value',
  ColonExpected: 'expected a colon',
  CommaExpected: 'expected a comma',
  CloseBraceExpected: "expected '}'",
  CloseBracketExpected: "expected ']'",
  EndOfFileExpected: 'unexpected text after the JSON value',
  InvalidCommentToken: 'comments are not JSON',
  UnexpectedEndOfComment: 'comments are not JSON',
  UnexpectedEndOfString: 'unterminated string',
  UnexpectedEndOfNumber: 'malformed number',
  InvalidUnicode: 'invalid \\u escape',
  InvalidEscapeCharacter: 'invalid escape in a string',
  InvalidCharacter: 'unescaped control character in a string',
};

/** 1-based line and column (in characters) of a UTF-16 offset, as an editor shows it. */
function lineColumn(text: string, offset: number): { line: number; column: number } {
  let line = 1;
  let lineStart = 0;
  for (let i = text.indexOf('\n'); i !== -1 && i < offset; i = text.indexOf('\n', i + 1)) {
    line++;
    lineStart = i + 1;
  }
  return { line, column: [...text.slice(lineStart, offset)].length + 1 };
}

/** One character, quoted, or its \\u escape when it would not be visible. */
function shown(text: string, offset: number): string {
  const char = String.fromCodePoint(text.codePointAt(offset) ?? 0);
  if (char === "'") return `"'" (JSON strings take double quotes)`;
  return /^[\p{L}\p{N}\p{P}\p{S}]$/u.test(char)
    ? `'${char}'`
    : `U+${char.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}`;
}

/**
 * Why a text that JSON.parse refused is not JSON, e.g. "expected a comma at line 3, column 8",
 * or "it ends early (line 1, column 15)". Never quotes the text itself.
 */
export function describeJsonSyntaxError(text: string, v8Message: string): string {
  const errors: ParseError[] = [];
  parse(text, errors, { disallowComments: true, allowTrailingComma: false, allowEmptyContent: false });
  // jsonc-parser accepts a few things V8 refuses (a lone surrogate is fine to both); V8's own offset is the fallback.
  const v8Offset = /at position (\d+)/.exec(v8Message)?.[1];
  const first = errors[0]
    ? { code: printParseErrorCode(errors[0].error), offset: errors[0].offset }
    : v8Offset
      ? { code: 'InvalidSymbol', offset: Number(v8Offset) }
      : undefined;
  if (!first) return 'it is not valid JSON';
  const { line, column } = lineColumn(text, first.offset);
  if (first.offset >= text.trimEnd().length) return `it ends early (line ${line}, column ${column})`;
  const what = wording[first.code] ?? 'unexpected input';
  return `${first.code === 'InvalidSymbol' ? `${what} ${shown(text, first.offset)}` : what} at line ${line}, column ${column}`;
}
