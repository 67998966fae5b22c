import {
  createReport,
  deleteReport,
  getReport,
  getRun,
  listReports,
  listRuns,
  updateReport,
} from '../../domain/reports/reports.ts';
import { tenantOf } from '../auth/principal.ts';
import { listQuery } from '../pagination.ts';
import { route } from '../route.ts';
import { idParam, listOf } from '../schemas/common.ts';
import { CreateReportRequest, ReportRun, runParams, SavedReport, UpdateReportRequest } from '../schemas/reports.ts';
import type { Services } from '../services.ts';
import { pageOf } from './paging.ts';

const tags = ['Reports'];

/** Saved reports and their runs. */
export const reportRoutes = (s: Services) => [
  route({
    method: 'post',
    path: '/api/v1/reports',
    operationId: 'createReport',
    tags,
    access: 'sandbox',
    scope: 'reports:write',
    summary: 'Save a report with a schedule; each due time stores a run and emits saved_report.due.',
    body: CreateReportRequest,
    responses: { 201: SavedReport },
    handler: async ({ body, principal }) => ({
      status: 201,
      body: await createReport(s, tenantOf(principal), {
        ...body,
        firstRunAt: body.firstRunAt ? new Date(body.firstRunAt) : undefined,
      }),
    }),
  }),
  route({
    method: 'get',
    path: '/api/v1/reports',
    operationId: 'listReports',
    tags,
    access: 'sandbox',
    scope: 'reports:read',
    summary: 'List saved reports, newest first.',
    query: listQuery,
    responses: { 200: listOf(SavedReport) },
    handler: async ({ query, principal, ctx }) => ({
      body: await pageOf(s, { query, principal, ctx }, (page) => listReports(s.db, tenantOf(principal), page)),
    }),
  }),
  route({
    method: 'get',
    path: '/api/v1/reports/:id',
    operationId: 'getReport',
    tags,
    access: 'sandbox',
    scope: 'reports:read',
    summary: 'Get a saved report.',
    params: idParam,
    responses: { 200: SavedReport },
    handler: async ({ params, principal }) => ({ body: await getReport(s.db, tenantOf(principal), params.id) }),
  }),
  route({
    method: 'patch',
    path: '/api/v1/reports/:id',
    operationId: 'updateReport',
    tags,
    access: 'sandbox',
    scope: 'reports:write',
    summary: 'Rename, reschedule, pause (active: false) or resume a saved report.',
    params: idParam,
    body: UpdateReportRequest,
    responses: { 200: SavedReport },
    handler: async ({ params, body, principal }) => ({
      body: await updateReport(s, tenantOf(principal), params.id, body),
    }),
  }),
  route({
    method: 'delete',
    path: '/api/v1/reports/:id',
    operationId: 'deleteReport',
    tags,
    access: 'sandbox',
    scope: 'reports:write',
    idempotent: false,
    summary: 'Delete a saved report and its runs.',
    params: idParam,
    responses: { 204: { description: 'Deleted' } },
    handler: async ({ params, principal }) => {
      await deleteReport(s, tenantOf(principal), params.id);
      return { status: 204 };
    },
  }),
  route({
    method: 'get',
    path: '/api/v1/reports/:id/runs',
    operationId: 'listReportRuns',
    tags,
    access: 'sandbox',
    scope: 'reports:read',
    summary: "A report's runs, newest first.",
    params: idParam,
    query: listQuery,
    responses: { 200: listOf(ReportRun) },
    handler: async ({ params, query, principal, ctx }) => ({
      body: await pageOf(s, { query, principal, ctx }, (page) => listRuns(s.db, tenantOf(principal), params.id, page)),
    }),
  }),
  route({
    method: 'get',
    path: '/api/v1/reports/:id/runs/:runId',
    operationId: 'getReportRun',
    tags,
    access: 'sandbox',
    scope: 'reports:read',
    summary: "One run's result (the resultPath of saved_report.due).",
    params: runParams,
    responses: { 200: ReportRun },
    handler: async ({ params, principal }) => ({
      body: await getRun(s.db, tenantOf(principal), params.id, params.runId),
    }),
  }),
];
