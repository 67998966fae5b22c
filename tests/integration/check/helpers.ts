import type { TestSandbox } from '../../helpers/engine.ts';

type CheckStart = { url: string; secret?: string; effectsUrl?: string } | { endpointId: string; effectsUrl?: string };

/** Starts a check through the API (a bare URL, or an endpoint) and polls until it has finished. */
export async function runCheck(sb: TestSandbox, start: CheckStart): Promise<any> {
  return waitForCheck(sb, await startCheck(sb, start));
}

/** Polls a started check run until it has finished. */
export async function waitForCheck(sb: TestSandbox, id: string): Promise<any> {
  const deadline = Date.now() + 60_000;
  for (;;) {
    const run = await sb.api(`/api/v1/webhooks/checks/${id}`);
    if (run.body.status !== 'running') return run.body;
    if (Date.now() > deadline) throw new Error(`check ${id} still running: ${JSON.stringify(run.body)}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

async function startCheck(sb: TestSandbox, start: CheckStart): Promise<string> {
  const res =
    'endpointId' in start
      ? await sb.api(`/api/v1/webhooks/endpoints/${start.endpointId}/checks`, {
          body: start.effectsUrl ? { effectsUrl: start.effectsUrl } : {},
        })
      : await sb.api('/api/v1/webhooks/checks', { body: start });
  if (res.status !== 202) throw new Error(`check did not start: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body.id;
}

/** The ids of the cases that failed (not the blocked ones, which are not scored). */
export const failedCases = (run: any): string[] =>
  run.report.cases.filter((c: any) => c.status === 'failed').map((c: any) => c.id);

/** The ids of the cases not scored because another case (valid) failed. */
export const blockedCases = (run: any): string[] =>
  run.report.cases.filter((c: any) => c.status === 'blocked').map((c: any) => c.id);

/** The ids of the cases that passed. */
export const passedCases = (run: any): string[] =>
  run.report.cases.filter((c: any) => c.status === 'passed').map((c: any) => c.id);

/** The cases that only pass by refusing a bad request. */
export const rejectionCases = [
  'tampered-body',
  'wrong-secret',
  'stale-timestamp',
  'future-timestamp',
  'missing-signature',
  'malformed-signature',
];

/** The case result by id. */
export const caseOf = (run: any, id: string): any => run.report.cases.find((c: any) => c.id === id);
