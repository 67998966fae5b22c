import { createHash } from 'node:crypto';
import { once } from 'node:events';
import type { Writable } from 'node:stream';
import { finished } from 'node:stream/promises';
import { createGzip } from 'node:zlib';
import type { Db, Tx } from '../../../db/database.ts';
import { notFound } from '../../../shared/problem.ts';
import { sandboxFileVersion, type SandboxFileEnd, type SandboxFileHeader } from '../../../shared/sandbox-file.ts';
import { portableTables } from './manifest.ts';
import { importedColumns, type PortableTable } from './portable-table.ts';

export interface ExportOptions {
  includeSecrets: boolean;
  sandbayVersion: string;
  /** Real now, epoch ms (the sandbox clock is this plus the stored offset). */
  realNow: number;
  /** Replaces the sandbox's own notes in the file. */
  notes?: string;
  /** Signs the file's hash (its end line's hmac): this Sandbay can tell its own files on import. */
  sign: (sha256: string) => string;
}

// Rows per FETCH: big enough that statements are few, small enough that one batch is a few MB at most.
const fetchSize = 500;

const literal = (text: string) => `'${text.replace(/'/g, "''")}'`;

/** The select of one table's exported columns for one sandbox, in export order. */
export function exportSelect(t: PortableTable, tenantId: string, includeSecrets: boolean): string {
  const columns = [
    ...t.columns.map((c) => `t."${c}"`),
    ...Object.keys(t.secrets ?? {}).map((c) => (includeSecrets ? `t."${c}"` : `null::text as "${c}"`)),
    ...Object.entries(t.portable ?? {}).map(([c, p]) => `${p.out} as "${c}"`),
  ];
  const order = [...(t.sortKey ? [t.sortKey] : []), ...t.order.map((c) => `t."${c}"`)].join(', ');
  return `select ${columns.join(', ')} from ${t.table} t where t.tenant_id = ${literal(tenantId)} order by ${order}`;
}

/** Lines out, hashed as they go, gzip-compressed into `out` with its back-pressure respected. */
class LineSink {
  readonly hash = createHash('sha256');
  lines = 0;
  private readonly gzip = createGzip({ level: 6 });

  constructor(private readonly out: Writable) {
    this.gzip.pipe(out);
  }

  async write(text: string, lines: number): Promise<void> {
    this.hash.update(text);
    this.lines += lines;
    if (!this.gzip.write(text)) await once(this.gzip, 'drain');
  }

  async close(last: string): Promise<void> {
    this.gzip.end(last);
    await finished(this.out);
  }
}

/**
 * Writes one sandbox as a sandbox file (docs/portable.md) into `out`, from one snapshot of the
 * database (a repeatable-read, read-only transaction), table by table through cursors, so memory
 * holds one batch of rows at a time whatever the sandbox's size. Resolves once `out` has finished.
 */
export async function writeSandboxFile(
  db: Db,
  tenantId: string,
  out: Writable,
  options: ExportOptions,
): Promise<{ rows: Record<string, number>; name: string }> {
  const sink = new LineSink(out);
  const rows: Record<string, number> = {};
  let name = tenantId;
  try {
    await db.transaction(async (tx) => {
      await tx.exec('set transaction isolation level repeatable read, read only');
      const header = await headerOf(tx, tenantId, options, db.driver);
      name = header.sandbox.name;
      await sink.write(`${JSON.stringify(header)}\n`, 1);
      for (const t of portableTables) {
        await sink.write(`${JSON.stringify({ table: t.table, columns: importedColumns(t) })}\n`, 1);
        rows[t.table] = await copyRows(tx, t, exportSelect(t, tenantId, options.includeSecrets), sink);
      }
    });
  } catch (err) {
    out.destroy();
    throw err;
  }
  const sha256 = sink.hash.digest('hex');
  const end: SandboxFileEnd = { end: { rows, lines: sink.lines, sha256, hmac: options.sign(sha256) } };
  await sink.close(`${JSON.stringify(end)}\n`);
  return { rows, name };
}

async function headerOf(
  tx: Tx,
  tenantId: string,
  options: ExportOptions,
  driver: Db['driver'],
): Promise<SandboxFileHeader> {
  const [tenant] = await tx.query<{
    name: string;
    notes: string | null;
    created_at: Date;
    webhook_test_secret: string;
    clock_offset_ms: number;
  }>(
    `select name, notes, created_at, webhook_test_secret, clock_offset_ms from tenants where id = $1 and not is_template`,
    [tenantId],
  );
  if (!tenant) throw notFound('sandbox');
  const offsetMs = Number(tenant.clock_offset_ms);
  return {
    sandbay: 'sandbox',
    version: sandboxFileVersion,
    sandbayVersion: options.sandbayVersion,
    exportedAt: new Date(options.realNow).toISOString(),
    driver,
    sandbox: {
      id: tenantId,
      name: tenant.name,
      notes: options.notes ?? tenant.notes ?? null,
      createdAt: tenant.created_at.toISOString(),
    },
    clock: { now: new Date(options.realNow + offsetMs).toISOString(), offsetMs },
    secrets: options.includeSecrets ? 'included' : 'omitted',
    webhookTestSecret: options.includeSecrets ? tenant.webhook_test_secret : null,
  };
}

async function copyRows(tx: Tx, t: PortableTable, select: string, sink: LineSink): Promise<number> {
  const cursor = `export_${t.table}`;
  await tx.exec(`declare ${cursor} no scroll cursor for select row_to_json(x)::text as j from (${select}) x`);
  let count = 0;
  for (;;) {
    const batch = await tx.query<{ j: string }>(`fetch ${fetchSize} from ${cursor}`);
    if (batch.length === 0) break;
    let text = '';
    for (const row of batch) text += `{"r":${row.j}}\n`;
    await sink.write(text, batch.length);
    count += batch.length;
  }
  await tx.exec(`close ${cursor}`);
  return count;
}
