import { assertDocumented, bodyOf } from './openapi-contract.ts';
import type { ApiResponse, TestSandbox } from './engine.ts';
import type { Queryable } from '../../src/db/database.ts';
import { portableTables } from '../../src/domain/sandboxes/portable/manifest.ts';
import { exportSelect } from '../../src/domain/sandboxes/portable/writer.ts';

/** GET /api/v1/sandbox/export as bytes (the response checked against the OpenAPI document). */
export async function exportBytes(url: string, sb: Pick<TestSandbox, 'token'>, query = ''): Promise<Buffer> {
  const path = `/api/v1/sandbox/export${query ? `?${query}` : ''}`;
  const res = await fetch(url + path, { headers: { authorization: `Bearer ${sb.token}` } });
  const bytes = Buffer.from(await res.arrayBuffer());
  const contentType = res.headers.get('content-type');
  const body = /json/.test(contentType ?? '') ? bodyOf(contentType, bytes.toString('utf8')) : '(bytes)';
  await assertDocumented(url, { method: 'GET', path, status: res.status, contentType, body });
  if (res.status !== 200) throw new Error(`export failed: ${res.status} ${bytes.toString('utf8')}`);
  return bytes;
}

/** POST /api/v1/sandboxes/import with a body of bytes (or a stream), checked against the OpenAPI document. */
export async function importBytes(
  url: string,
  body: Uint8Array | ReadableStream<Uint8Array>,
  options: { query?: string; contentType?: string; headers?: Record<string, string> } = {},
): Promise<ApiResponse> {
  const path = `/api/v1/sandboxes/import${options.query ? `?${options.query}` : ''}`;
  const res = await fetch(url + path, {
    method: 'POST',
    body,
    headers: { 'content-type': options.contentType ?? 'application/vnd.sandbay.sandbox+gzip', ...options.headers },
    ...(body instanceof ReadableStream ? { duplex: 'half' } : {}),
  } as RequestInit);
  const parsed = bodyOf(res.headers.get('content-type'), await res.text());
  await assertDocumented(url, {
    method: 'POST',
    path,
    status: res.status,
    contentType: res.headers.get('content-type'),
    body: parsed,
  });
  return { status: res.status, headers: res.headers, body: parsed };
}

const plain = (value: unknown): unknown => {
  if (value instanceof Date) return value.toISOString();
  if (value instanceof Uint8Array) return Buffer.from(value).toString('hex');
  return value;
};

/**
 * Every portable table's rows of one sandbox as its file carries them (secrets as null unless included), in export
 * order.
 */
export async function portableRows(
  q: Queryable,
  tenantId: string,
  includeSecrets: boolean,
): Promise<Record<string, unknown[]>> {
  const out: Record<string, unknown[]> = {};
  for (const t of portableTables) {
    const rows = await q.query(exportSelect(t, tenantId, includeSecrets));
    out[t.table] = rows.map((r) => Object.fromEntries(Object.entries(r).map(([k, v]) => [k, plain(v)])));
  }
  return out;
}
