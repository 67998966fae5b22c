import type { BodyRepairCode } from './doctor-codes.ts';

/** A mistake receivers make with the body bytes, and how to undo it. */
export interface BodyRepair {
  code: BodyRepairCode;
  title: string;
  detail: string;
  /** Undoes what the receiver did, or returns undefined when it does not apply. */
  undo: (body: string) => string | undefined;
}

// Each repair is a mistake receivers make; if undoing it makes the signature match, that was the mistake.
export const bodyRepairs: readonly BodyRepair[] = [
  {
    code: 'bom',
    title: 'The body starts with a byte order mark',
    detail:
      'Something added a UTF-8 BOM (EF BB BF) in front of the body. Sandbay signs the body without it: verify the bytes exactly as received.',
    undo: (b) => (b.startsWith('\uFEFF') ? b.slice(1) : undefined),
  },
  {
    code: 'crlf',
    title: 'Line endings were changed to CRLF',
    detail:
      'The body you verified has \\r\\n where Sandbay sent \\n (a Windows tool, a proxy or a text-mode read rewrote them). Read the body as binary.',
    undo: (b) => (b.includes('\r\n') ? b.replace(/\r\n/g, '\n') : undefined),
  },
  {
    code: 'surrounding_whitespace',
    title: 'Whitespace was added around the body',
    detail:
      'The body has leading or trailing whitespace (often a trailing newline added by a logger, an editor or `echo`). Verify the raw request bytes.',
    undo: (b) => (b.trim() !== b ? b.trim() : undefined),
  },
  {
    code: 'reserialised_json',
    title: 'The JSON was parsed and serialised again',
    detail:
      "The body is the same JSON, but not the same bytes: it was parsed (by a framework's JSON body parser, or by your code) and serialised again before it was verified. Verify the raw request body first, then parse it.",
    undo: (b) => {
      try {
        const compact = JSON.stringify(JSON.parse(b.replace(/^\uFEFF/, '')));
        return compact !== b ? compact : undefined;
      } catch {
        return undefined;
      }
    },
  },
  {
    code: 'wrong_encoding',
    title: 'The body was decoded with the wrong character set',
    detail:
      'UTF-8 bytes were read as Latin-1 (Ã¼ instead of ü) before they were verified. Verify the raw bytes, and decode them as UTF-8 only to parse them.',
    undo: (b) => {
      if (!/[\u0080-\u00ff]/.test(b) || /[^\u0000-\u00ff]/.test(b)) return undefined;
      try {
        return new TextDecoder('utf-8', { fatal: true }).decode(Uint8Array.from(b, (c) => c.charCodeAt(0)));
      } catch {
        return undefined;
      }
    },
  },
];
