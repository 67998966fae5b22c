import { createHmac } from 'node:crypto';
import type { Context } from 'koa';
import { z } from 'zod';
import { ApiError } from '../shared/problem.ts';
import { constantTimeEqual } from '../shared/hmac.ts';
import type { Principal } from './auth/principal.ts';

/** limit (1–100, default 20) and an opaque cursor, shared by every list (SPEC §2). */
export const listQuery = z.object({
  limit: z.coerce.number().int().min(1).max(100).default(20).describe('Page size, 1–100.'),
  cursor: z.string().optional().describe("Opaque; from the previous page's nextCursor."),
});

/** Where a page ended: the sort key (a timestamp, a sequence number, `<position>.<seq>` or a name) and the id. */
export interface CursorPosition {
  key: string | number;
  id: string;
}

/** What a list sorts by, so a cursor's key is checked before it reaches SQL. */
export type CursorKey = 'time' | 'seq' | 'commit' | 'name';

/** The list a cursor pages: the path that issued it and the sandbox that asked (null: the admin alone). */
export interface ListScope {
  list: string;
  sandbox: string | null;
}

/** The scope of the list a request reads. */
const listScopeOf = (input: { ctx: Context; principal: Principal }): ListScope => ({
  list: input.ctx.path,
  sandbox: input.principal.tenantId ?? null,
});

const version = 1;
type Payload = [typeof version, string, string | null, CursorKey, string | number, string];

const keyIsValid: Record<CursorKey, (key: unknown) => boolean> = {
  time: (key) => typeof key === 'string' && !Number.isNaN(Date.parse(key)),
  seq: (key) => Number.isSafeInteger(key),
  commit: (key) =>
    typeof key === 'string' &&
    /^\d{1,16}\.\d{1,16}$/.test(key) &&
    key.split('.').every((n) => Number.isSafeInteger(Number(n))),
  name: (key) => typeof key === 'string',
};

function invalidCursor(
  detail: string,
  hint = 'Pass nextCursor from a previous page of this list unchanged.',
): ApiError {
  return new ApiError(422, 'validation_failed', detail, { errors: [{ path: '/cursor', message: hint }] });
}

/**
 * Cursors are signed with a per-install key and name the list, the sandbox and the key type
 * they were issued for: a client can pass them back but not forge or edit them, and one from
 * another list or sandbox is a clear 422 instead of a wrong page or a failed query.
 */
export class CursorCodec {
  constructor(private readonly key: string) {}

  /** The cursors of the list a request reads (its path and sandbox), sorted by `key`. */
  of(input: { ctx: Context; principal: Principal }, key: CursorKey): ListCursors {
    return new ListCursors(this, listScopeOf(input), key);
  }

  /** @internal Signs a position within a list. */
  encode(scope: ListScope, kind: CursorKey, position: CursorPosition): string {
    const payload: Payload = [version, scope.list, scope.sandbox, kind, position.key, position.id];
    const text = Buffer.from(JSON.stringify(payload)).toString('base64url');
    return `${text}.${this.sign(text)}`;
  }

  /** @internal Reads a cursor, refusing one this list did not issue. */
  decode(scope: ListScope, kind: CursorKey, cursor: string): CursorPosition {
    const [text, signature, ...rest] = cursor.split('.');
    if (!text || !signature || rest.length > 0 || !constantTimeEqual(signature, this.sign(text))) {
      throw invalidCursor(
        'cursor is not one this server issued.',
        'Invalid cursor; pass nextCursor from a previous page unchanged.',
      );
    }
    const payload = parsePayload(Buffer.from(text, 'base64url').toString('utf8'));
    if (!payload) throw invalidCursor('cursor is not one this server issued.');
    const [, list, sandbox, issuedKind, key, id] = payload;
    if (list !== scope.list) throw invalidCursor(`This cursor pages ${list}, not ${scope.list}.`);
    if (sandbox !== scope.sandbox) throw invalidCursor('This cursor was issued to another sandbox.');
    if (issuedKind !== kind || !keyIsValid[kind](key))
      throw invalidCursor('This cursor is from an older version of this list; start again from the first page.');
    return { key, id };
  }

  private sign(payload: string): string {
    return createHmac('sha256', this.key).update(payload).digest('base64url').slice(0, 22);
  }
}

function parsePayload(text: string): Payload | undefined {
  try {
    const value: unknown = JSON.parse(text);
    if (!Array.isArray(value) || value.length !== 6 || value[0] !== version) return undefined;
    const [, list, sandbox, , key, id] = value;
    if (typeof list !== 'string' || (sandbox !== null && typeof sandbox !== 'string') || typeof id !== 'string')
      return undefined;
    if (typeof key !== 'string' && typeof key !== 'number') return undefined;
    return value as Payload;
  } catch {
    return undefined;
  }
}

/** The cursors of one list as one caller sees it. */
export class ListCursors {
  constructor(
    private readonly codec: CursorCodec,
    private readonly scope: ListScope,
    private readonly kind: CursorKey,
  ) {}

  /** Where the previous page ended; undefined for the first page. */
  decode(cursor: string | undefined): CursorPosition | undefined {
    return cursor === undefined ? undefined : this.codec.decode(this.scope, this.kind, cursor);
  }

  /** The sequence number a `seq` list's previous page ended at. */
  afterSeq(cursor: string | undefined): number | undefined {
    return this.decode(cursor)?.key as number | undefined;
  }

  /** The (commit position, sequence) a `commit` list's previous page ended at. */
  afterCommit(cursor: string | undefined): { position: number; seq: number } | undefined {
    const key = this.decode(cursor)?.key as string | undefined;
    if (key === undefined) return undefined;
    const [position, seq] = key.split('.').map(Number);
    return { position, seq };
  }

  /**
   * The list envelope from `limit + 1` fetched rows: the extra row only says whether
   * another page exists.
   */
  page<T extends { id: string }>(
    rows: T[],
    limit: number,
    keyOf: (row: T) => string | number = (row) => (row as unknown as { createdAt: string }).createdAt,
  ): { data: T[]; nextCursor: string | null } {
    const data = rows.slice(0, limit);
    const last = data[data.length - 1];
    return {
      data,
      nextCursor:
        rows.length > limit && last
          ? this.codec.encode(this.scope, this.kind, { key: keyOf(last), id: last.id })
          : null,
    };
  }
}
