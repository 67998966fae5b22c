import type { Readable } from 'node:stream';
import type { Tx } from '../../../db/database.ts';
import type { Invalidations } from '../../../db/invalidations.ts';
import type { SandboxClock } from '../../../schedule/clock.ts';
import type { ImportReport, SandboxFileHeader, SandboxFileSection } from '../../../shared/sandbox-file.ts';
import { dueChannel } from '../../../webhooks/claim-loop.ts';
import { newWebhookSecret } from '../../../webhooks/endpoints.ts';
import { newSigningKey } from '../../../webhooks/endpoint-keys.ts';
import type { Sandboxes } from '../sandboxes.ts';
import { portableTableNamed, portableTables, type PortableTable } from './manifest.ts';
import { fileProblems, type FileWhere } from './problems.ts';
import { readSandboxFile, type ReadLimits } from './reader.ts';

export interface ImportDeps {
  sandboxes: Sandboxes;
  clock: SandboxClock;
  invalidations: Invalidations;
  /** This server's base URL (its public URL when it has one): where the imported sandbox's catchers are. */
  baseUrl?: () => string;
}

export interface ImportOptions {
  /** Replaces the file's sandbox name. */
  name?: string;
  limits?: ReadLimits;
}

type Created = Awaited<ReturnType<Sandboxes['create']>>;

/** PostgreSQL's complaints about a batch of rows, as file problems naming the table and the batch's first line. */
function rowProblem(err: unknown, where: FileWhere): unknown {
  const e = err as { code?: string; message?: string; detail?: string };
  const why = `${e.message ?? 'rejected'}${e.detail ? ` (${e.detail})` : ''}`
    .replace(/\(tenant_id, /, '(')
    .replace(/=\(sbx_\w+, /, '=(');
  if (e.code === '23505') return fileProblems.conflict(`a row repeats the key of another: ${why}.`, where);
  if (e.code && /^(22|23)/.test(e.code)) return fileProblems.malformed(`a row does not fit its table: ${why}.`, where);
  return err;
}

/** Inserts one batch of a table's rows: the file's columns, secrets replaced, portable columns turned back. */
async function insertRows(
  tx: Tx,
  tenantId: string,
  t: PortableTable,
  section: SandboxFileSection,
  rows: Record<string, unknown>[],
  where: FileWhere,
): Promise<void> {
  const targets = section.columns.map((c) => `"${c}"`);
  const values = section.columns.map((c) => (t.portable?.[c]?.in ? `${t.portable[c].in}` : `f."${c}"`));
  const sql = `insert into ${t.table} (tenant_id, ${targets.join(', ')})
               select $1, ${values.join(', ')} from json_populate_recordset(null::${t.table}, $2::json) f`;
  try {
    await tx.query(sql, [tenantId, JSON.stringify(rows)]);
  } catch (err) {
    throw rowProblem(err, where);
  }
}

/** Fills the secrets a file left out (null): new webhook secrets (noted for the report), the rest by their policy. */
function replaceSecrets(t: PortableTable, rows: Record<string, unknown>[], renewed: Set<string>): void {
  for (const [column, policy] of Object.entries(t.secrets ?? {})) {
    for (const row of rows) {
      if (row[column] !== null && row[column] !== undefined) continue;
      if (policy === 'new-webhook-secret') {
        row[column] = newWebhookSecret();
        renewed.add(String(row.endpoint_id));
      } else if (policy === 'new-signing-key') {
        // Its secret was left out too, and is reported renewed; a generation made without a key gets one as well.
        row[column] = newSigningKey();
      } else row[column] = policy === 'empty' ? '' : null;
    }
  }
}

/**
 * Endpoints and bare-URL deliveries aimed at the file's own sandbox's catchers (`<origin>/catch/<its
 * id>/<name>`, whatever server it came from) are aimed at the new sandbox's catchers on this server:
 * a demo carried to another laptop keeps working, and a copy never delivers into the original.
 * Recorded attempts keep the URL they went to.
 */
async function aimAtOwnCatchers(tx: Tx, tenantId: string, sourceId: string, ownCatchers: string): Promise<void> {
  for (const [table, column] of [
    ['webhook_endpoints', 'url'],
    ['deliveries', 'target_url'],
  ] as const) {
    await tx.query(
      `update ${table} set ${column} = $3 || substr(${column}, strpos(${column}, '/catch/' || $2 || '/') + length('/catch/' || $2))
        where tenant_id = $1 and ${column} ~ '^https?://[^/?#]+/catch/' and split_part(${column}, '/', 5) = $2`,
      [tenantId, encodeURIComponent(sourceId), ownCatchers],
    );
  }
}

/**
 * Imports a sandbox file as a new sandbox (docs/portable.md). `open` is called twice: a first pass
 * checks the whole file (framing, version, hash, counts) before the database is touched; the second
 * inserts every row in the sandbox's creating transaction, so a file that fails anywhere leaves nothing.
 * The sandbox clock resumes from the file's sandbox time; pending deliveries keep their due times.
 */
export async function importSandboxFile(
  deps: ImportDeps,
  open: () => Readable,
  options: ImportOptions = {},
): Promise<Created & { report: ImportReport }> {
  const started = performance.now();
  let header: SandboxFileHeader | undefined;
  for await (const record of readSandboxFile(open(), { limits: options.limits, verifyOnly: true })) {
    if (record.kind === 'header') header = record.header;
  }
  if (!header) throw fileProblems.notASandboxFile('it has no header');
  const file = header;
  const offsetMs = Date.parse(file.clock.now) - deps.clock.real();
  const renewed = new Set<string>();
  const endpointUrls = new Map<string, string>();
  const rows: Record<string, number> = {};
  const created = await deps.sandboxes.create(options.name ?? file.sandbox.name, {
    webhookTestSecret: file.webhookTestSecret ?? undefined,
    notes: file.sandbox.notes ?? null,
    fill: async (tx, id) => {
      let section: SandboxFileSection | undefined;
      for await (const record of readSandboxFile(open(), { limits: options.limits })) {
        if (record.kind === 'section') section = record.section;
        if (record.kind !== 'rows' || !section) continue;
        const t = portableTableNamed.get(record.table)!;
        if (file.secrets === 'omitted') replaceSecrets(t, record.rows, renewed);
        if (t.table === 'webhook_endpoints') for (const r of record.rows) endpointUrls.set(String(r.id), String(r.url));
        await insertRows(tx, id, t, section, record.rows, { line: record.line, table: t.table });
        rows[t.table] = (rows[t.table] ?? 0) + record.rows.length;
      }
      for (const t of portableTables) if (t.afterImport) await tx.query(t.afterImport, [id]);
      if (deps.baseUrl && file.sandbox.id)
        await aimAtOwnCatchers(tx, id, file.sandbox.id, `${deps.baseUrl()}/catch/${encodeURIComponent(id)}`);
      // The database announces the new offset to every engine (src/db/cache-registry.ts).
      await tx.query('update tenants set clock_offset_ms = $2 where id = $1', [id, offsetMs]);
      // Pending deliveries are due work every engine's claim loop should look at now.
      await tx.notify(dueChannel, '');
      tx.afterCommit(() => deps.clock.setOffset(id, offsetMs));
    },
  });
  const report: ImportReport = {
    source: {
      sandboxId: file.sandbox.id,
      name: file.sandbox.name,
      exportedAt: file.exportedAt,
      sandbayVersion: file.sandbayVersion,
      driver: file.driver,
    },
    rows,
    secrets: file.secrets === 'included' ? 'imported' : 'issued',
    newSecrets: [...renewed].map((endpointId) => ({ endpointId, url: endpointUrls.get(endpointId) ?? '' })),
    clock: { now: new Date(deps.clock.nowMs(created.sandbox.id)).toISOString(), offsetMs },
    notes: file.sandbox.notes ?? null,
    durationMs: Math.round(performance.now() - started),
  };
  return { ...created, report };
}
