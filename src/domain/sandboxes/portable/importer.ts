import type { Readable } from 'node:stream';
import type { Tx } from '../../../db/database.ts';
import type { Invalidations } from '../../../db/invalidations.ts';
import type { SandboxClock } from '../../../schedule/clock.ts';
import { z } from 'zod';
import { maxClockOffsetMs } from '../../../shared/clock-bounds.ts';
import type {
  ImportReport,
  SandboxFileEnd,
  SandboxFileHeader,
  SandboxFileSection,
} from '../../../shared/sandbox-file.ts';
import { dueChannel } from '../../../webhooks/claim-loop.ts';
import { newWebhookSecret } from '../../../webhooks/endpoints.ts';
import { newSigningKey } from '../../../webhooks/endpoint-keys.ts';
import type { Sandboxes } from '../sandboxes.ts';
import { portableTableNamed, portableTables } from './manifest.ts';
import type { PortableTable } from './portable-table.ts';
import { fileProblems, type FileWhere } from './problems.ts';
import { readSandboxFile, type ReadLimits } from './reader.ts';
import { RowChecker, type columnTypes, type DomainRules } from './row-rules.ts';
import type { FileSignature } from './signature.ts';

export interface ImportDeps {
  sandboxes: Sandboxes;
  clock: SandboxClock;
  invalidations: Invalidations;
  /** This server's base URL (its public URL when it has one): where the imported sandbox's catchers are. */
  baseUrl?: () => string;
  /** The database's column types (read once). */
  columnTypes: () => ReturnType<typeof columnTypes>;
  /** The outbound policy, as at registration: throws a file problem for a URL it refuses. */
  assertReceiverAllowed: (url: string, where: FileWhere) => Promise<void>;
  fileSignature: FileSignature;
  domainRules: DomainRules;
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
 * The header's values, as the API that makes a sandbox takes them; its clock within the bound `clock advance` keeps.
 */
function checkHeader(file: SandboxFileHeader, realNow: number): number {
  const header = z.object({
    sandbox: z.object({ name: z.string().trim().max(100), notes: z.string().max(2000).nullable() }),
    webhookTestSecret: z
      .string()
      .regex(/^whsec_[A-Za-z0-9+/=]{24,100}$/)
      .nullable(),
  });
  const parsed = header.safeParse(file);
  const field = parsed.success ? undefined : parsed.error.issues[0];
  if (field)
    throw fileProblems.invalid({ line: 1, table: 'header', row: 1, field: field.path.join('.') }, field.message);
  const offsetMs = Date.parse(file.clock.now) - realNow;
  if (!(Math.abs(offsetMs) <= maxClockOffsetMs))
    throw fileProblems.invalid(
      { line: 1, table: 'header', row: 1, field: 'clock.now' },
      'The sandbox clock must be within 100 years of real time (the bound `clock advance` keeps).',
      '/clock/now',
    );
  return Math.round(offsetMs);
}

/**
 * Imports a sandbox file as a new sandbox (docs/portable.md). `open` is called twice: a first pass
 * checks the whole file (framing, version, hash, counts, and every row against the rules the API
 * and the database enforce, row-rules.ts), then the outbound policy judges the receivers it names,
 * all before the database is touched; the second inserts every row in the sandbox's creating
 * transaction, so a file that fails anywhere leaves nothing. The sandbox clock resumes from the
 * file's sandbox time; pending deliveries keep their due times, but the endpoints arrive paused.
 */
export async function importSandboxFile(
  deps: ImportDeps,
  open: () => Readable,
  options: ImportOptions = {},
): Promise<Created & { report: ImportReport }> {
  const started = performance.now();
  let header: SandboxFileHeader | undefined;
  let end: SandboxFileEnd['end'] | undefined;
  let offsetMs = 0;
  let checker: RowChecker | undefined;
  const columns = await deps.columnTypes();
  const check = (table: string, sectionColumns: readonly string[], row: Record<string, unknown>, line: number) =>
    checker!.check(portableTableNamed.get(table)!, sectionColumns, row, line);
  for await (const record of readSandboxFile(open(), { limits: options.limits, verifyOnly: true, check })) {
    if (record.kind === 'header') {
      header = record.header;
      offsetMs = checkHeader(header, deps.clock.real());
      checker = new RowChecker(columns, Date.parse(header.clock.now), deps.domainRules);
    }
    if (record.kind === 'end') end = record.end;
  }
  if (!header || !checker || !end) throw fileProblems.notASandboxFile('it has no header');
  checker.finish();
  const file = header;
  const receivers = checker.receivers;
  const ownCatcher = file.sandbox.id ? ownCatcherUrl(file.sandbox.id) : undefined;
  // Judged before the transaction: a lookup may take seconds, and no connection waits on it.
  for (const [url, where] of receivers.urls) if (!ownCatcher?.test(url)) await deps.assertReceiverAllowed(url, where);
  const renewed = new Set<string>();
  const rows: Record<string, number> = {};
  let report: ImportReport | undefined;
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
        await insertRows(tx, id, t, section, record.rows, { line: record.line, table: t.table });
        rows[t.table] = (rows[t.table] ?? 0) + record.rows.length;
      }
      for (const t of portableTables) if (t.afterImport) await tx.query(t.afterImport, [id]);
      if (deps.baseUrl && file.sandbox.id)
        await aimAtOwnCatchers(tx, id, file.sandbox.id, `${deps.baseUrl()}/catch/${encodeURIComponent(id)}`);
      const sandboxNow = new Date(deps.clock.real() + offsetMs);
      const ownCatchers = deps.baseUrl ? `${deps.baseUrl()}/catch/${encodeURIComponent(id)}/` : undefined;
      const quiet = await arriveQuiet(tx, id, sandboxNow, ownCatchers);
      // The database announces the new offset to every engine (src/db/cache-registry.ts).
      await tx.query('update tenants set clock_offset_ms = $2 where id = $1', [id, offsetMs]);
      // Pending deliveries are due work every engine's claim loop should look at now.
      await tx.notify(dueChannel, '');
      tx.afterCommit(() => deps.clock.setOffset(id, offsetMs));
      // Made before the commit: nothing after it may fail (a sandbox whose credentials nobody got must not exist).
      report = {
        source: {
          sandboxId: file.sandbox.id,
          name: file.sandbox.name,
          exportedAt: file.exportedAt,
          sandbayVersion: file.sandbayVersion,
          driver: file.driver,
        },
        rows,
        secrets: file.secrets === 'included' ? 'imported' : 'issued',
        newSecrets: [...renewed].map((endpointId) => ({
          endpointId,
          url: receivers.endpoints.get(endpointId) ?? '',
        })),
        signature: end.hmac !== undefined && deps.fileSignature.verify(end) ? 'signed-by-this-sandbay' : 'unsigned',
        receivers: quiet,
        clock: { now: sandboxNow.toISOString(), offsetMs },
        notes: file.sandbox.notes ?? null,
        durationMs: 0,
      };
    },
  });
  return { ...created, report: { ...report!, durationMs: Math.round(performance.now() - started) } };
}

/** `<any origin>/catch/<the file's sandbox id>/…`: a URL aimAtOwnCatchers turns into this sandbox's own catcher. */
const ownCatcherUrl = (sourceId: string) =>
  new RegExp(`^https?://[^/?#]+/catch/${encodeURIComponent(sourceId).replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}/`);

/**
 * An imported sandbox calls nothing until its user says so (SPEC §12): endpoints that were on arrive
 * disabled as `imported` (their pending deliveries wait, as for any disabled endpoint, and enabling
 * one resumes them), and a pending delivery to a bare URL (a test webhook) is dead-lettered, to be
 * replayed by hand. What is aimed at the sandbox's own catchers on this server (`ownCatchers`, the
 * prefix of their URLs) calls nothing outside and keeps working. Says every receiver URL the sandbox names.
 */
async function arriveQuiet(
  tx: Tx,
  tenantId: string,
  now: Date,
  ownCatchers: string | undefined,
): Promise<ImportReport['receivers']> {
  await tx.query(
    `update webhook_endpoints set enabled = false, disabled_reason = 'imported', disabled_at = $2, disabled_delivery_id = null
      where tenant_id = $1 and enabled and ($3::text is null or left(url, length($3)) <> $3)`,
    [tenantId, now, ownCatchers ?? null],
  );
  const endpoints = await tx.query<{ id: string; url: string; pending: number }>(
    `select e.id, e.url, (select count(*) from deliveries d where d.tenant_id = e.tenant_id and d.endpoint_id = e.id
                                                          and d.status = 'pending')::int as pending
       from webhook_endpoints e where e.tenant_id = $1 order by e.created_at, e.id`,
    [tenantId],
  );
  const urls = await tx.query<{ url: string; deliveries: number }>(
    `with held as (
       update deliveries set status = 'dead', next_attempt_at = null, updated_at = $2,
              last_error = 'Imported: a sandbox file''s test webhook to a URL is not sent on import; replay it to send it.'
        where tenant_id = $1 and status = 'pending' and endpoint_id is null
          and ($3::text is null or left(target_url, length($3)) <> $3)
        returning target_url)
     select target_url as url, count(*)::int as deliveries from held group by target_url order by target_url`,
    [tenantId, now, ownCatchers ?? null],
  );
  return {
    endpoints: endpoints.map((e) => ({ endpointId: e.id, url: e.url, pendingDeliveries: e.pending })),
    deadLettered: urls,
  };
}
