import { createReadStream } from 'node:fs';
import { importErrorCodes } from '../../domain/sandboxes/portable/problems.ts';
import { scratchFile } from '../../domain/sandboxes/portable/portable.ts';
import { readLimitsFor } from '../../domain/sandboxes/portable/reader.ts';
import { ApiError } from '../../shared/problem.ts';
import { scopeAreas } from '../../shared/scopes.ts';
import { sandboxFileMediaType } from '../../shared/sandbox-file.ts';
import { can, tenantOf } from '../auth/principal.ts';
import { mediaType } from '../body.ts';
import { route } from '../route.ts';
import { ExportQuery, ImportedSandbox, ImportQuery } from '../schemas/portable.ts';
import type { Services } from '../services.ts';
import { spoolBody } from '../upload.ts';
import { assertMayCreate, type SandboxCreation } from './sandboxes.ts';

const tags = ['Sandboxes'];
/** What an upload may be sent as: our own type, gzip, or bytes of no particular kind. */
const uploadTypes = [sandboxFileMediaType, 'application/gzip', 'application/x-gzip', 'application/octet-stream'];

const fileName = (name: string, at: Date) =>
  `${
    name
      .replace(/[^\w.-]+/g, '-')
      .replace(/^-+|-+$/g, '')
      .slice(0, 60) || 'sandbox'
  }-${at.toISOString().slice(0, 10)}.sandbay`;

/** `creation` says who may make sandboxes (an import makes one): on a shared server, the operator unless opened. */
export const portableRoutes = (s: Services, options: { maxImportBytes: number; creation: SandboxCreation }) => [
  route({
    method: 'get',
    path: '/api/v1/sandbox/export',
    operationId: 'exportSandbox',
    // With includeSecrets the file holds every endpoint's signing secret.
    credentials: true,
    tags,
    access: 'sandbox',
    scope: 'sandbox:read',
    summary:
      'The sandbox as one file (docs/portable.md): commerce data, endpoints, catchers, events, deliveries with every attempt, the DLQ and the clock. It holds every area, so it needs every :read scope (and webhooks:write for secrets).',
    query: ExportQuery,
    responses: {
      200: { description: 'A sandbox file: gzip-compressed JSON lines', contentType: sandboxFileMediaType },
    },
    handler: async ({ ctx, query, principal }) => {
      const tenantId = tenantOf(principal);
      // The file holds every area's data: a token narrowed to some areas must not read the others through it.
      const unreadable = scopeAreas.map((area) => `${area}:read`).filter((scope) => !can(principal, scope));
      if (unreadable.length > 0) {
        throw new ApiError(
          403,
          'insufficient_scope',
          `A sandbox file holds every area's data: exporting it needs ${unreadable.join(' ')} as well.`,
          {
            headers: { 'WWW-Authenticate': `Bearer error="insufficient_scope", scope="${unreadable.join(' ')}"` },
          },
        );
      }
      if (query.includeSecrets && !can(principal, 'webhooks:write')) {
        throw new ApiError(403, 'insufficient_scope', 'Exporting secrets needs the webhooks:write scope.');
      }
      const headers = {
        'content-type': sandboxFileMediaType,
        'content-disposition': `attachment; filename="${fileName((await s.sandboxes.get(tenantId))?.name ?? tenantId, new Date(s.clock.real()))}"`,
      };
      // HEAD answers what GET would send but its size, without writing the file (an export reads the whole sandbox).
      // (An empty body: a null one would make it a 204.)
      if (ctx.method === 'HEAD') return { headers, body: '' };
      const file = await s.portable.exportToFile(tenantId, {
        includeSecrets: query.includeSecrets ?? false,
        notes: query.notes,
      });
      const stream = createReadStream(file.path);
      stream.on('close', () => void file.remove());
      return {
        body: stream,
        headers: { ...headers, 'content-length': String(file.bytes) },
      };
    },
  }),
  route({
    method: 'post',
    path: '/api/v1/sandboxes/import',
    operationId: 'importSandbox',
    credentials: true,
    tags,
    access: 'none',
    raw: true,
    idempotent: false,
    summary: `Make a new sandbox (new id, new credentials) from a sandbox file; the body is the file (up to ${Math.round(options.maxImportBytes / 2 ** 20)} MiB by default), checked whole before anything is written.`,
    query: ImportQuery,
    requestMedia: { types: uploadTypes, description: 'A sandbox file as GET /api/v1/sandbox/export writes it' },
    errors: { 400: ['upload_incomplete'], 403: ['sandbox_creation_closed'], ...importErrorCodes },
    responses: { 201: ImportedSandbox },
    handler: async ({ ctx, query }) => {
      assertMayCreate(options.creation, ctx);
      const type = mediaType(ctx.req);
      if (!uploadTypes.includes(type)) {
        throw new ApiError(
          415,
          'unsupported_media_type',
          `Send the sandbox file as ${sandboxFileMediaType} (or application/gzip)${type ? `, not ${type}` : ''}.`,
        );
      }
      // Taken before a byte is read: an upload beyond the server's few at a time waits outside (429).
      const release = s.portable.takeImportSlot();
      const file = await scratchFile('import.sandbay');
      try {
        const bytes = await spoolBody(ctx.req, file.path, options.maxImportBytes);
        // What the file may inflate to follows what was uploaded (reader.ts): a small crafted file inflates little.
        const imported = await s.portable.importFromFile(file.path, { name: query.name, limits: readLimitsFor(bytes) });
        ctx.status = 201;
        ctx.set('Cache-Control', 'no-store');
        ctx.body = imported;
      } finally {
        release();
        await file.remove();
      }
      return {};
    },
  }),
];
