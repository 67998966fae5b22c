import { createHmac } from 'node:crypto';
import { z } from 'zod';
import { ApiError } from '../shared/problem.ts';
import { constantTimeEqual } from '../shared/hmac.ts';

/** limit (1–100, default 20) and an opaque cursor, shared by every list (SPEC §2). */
export const listQuery = z.object({
  limit: z.coerce.number().int().min(1).max(100).default(20).describe('Page size, 1–100.'),
  cursor: z.string().optional().describe('Opaque; from the previous page\'s nextCursor.'),
});

/** Where a page ended: the sort key (a timestamp or a sequence number) and the id. */
export interface CursorPosition {
  key: string | number;
  id: string;
}

/**
 * Cursors are signed with a per-install key: a client can pass them back but not forge
 * or edit them, and a tampered cursor is a clear 422 instead of a silently wrong page.
 */
export class CursorCodec {
  constructor(private readonly key: string) {}

  encode(position: CursorPosition): string {
    const payload = Buffer.from(JSON.stringify([position.key, position.id])).toString('base64url');
    return `${payload}.${this.sign(payload)}`;
  }

  decode(cursor: string | undefined): CursorPosition | undefined {
    if (cursor === undefined) return undefined;
    const [payload, signature, ...rest] = cursor.split('.');
    const bad = () => new ApiError(422, 'validation_failed', 'cursor is not one this server issued.', {
      errors: [{ path: '/cursor', message: 'Invalid cursor; pass nextCursor from a previous page unchanged.' }],
    });
    if (!payload || !signature || rest.length > 0 || !constantTimeEqual(signature, this.sign(payload))) throw bad();
    const [key, id] = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as [string | number, string];
    return { key, id };
  }

  /**
   * The list envelope from `limit + 1` fetched rows: the extra row only says whether
   * another page exists.
   */
  page<T extends { id: string }>(
    rows: T[], limit: number, keyOf: (row: T) => string | number = (row) => (row as unknown as { createdAt: string }).createdAt,
  ): { data: T[]; nextCursor: string | null } {
    const data = rows.slice(0, limit);
    const last = data[data.length - 1];
    return { data, nextCursor: rows.length > limit && last ? this.encode({ key: keyOf(last), id: last.id }) : null };
  }

  private sign(payload: string): string {
    return createHmac('sha256', this.key).update(payload).digest('base64url').slice(0, 22);
  }
}
