/** One case of a receiver check (SPEC §10), as the CLI, the API, the inspector and sandbay/testing report it. */
export interface CheckCaseResult {
  /** The case id: valid, tampered-body, … (JUnit testcase name). */
  id: string;
  /** Passed; false when it failed or was not scored. */
  ok: boolean;
  /**
   * passed, failed, or blocked: not scored, because the case it depends on (`valid`) failed —
   * refusing a bad request proves nothing when a correct one is refused too.
   */
  status: 'passed' | 'failed' | 'blocked';
  /** The case whose failure blocks this one (`valid`), else null. */
  blockedBy: string | null;
  /** Passed, but worth a look (latency between 2 s and 10 s). */
  warning: boolean;
  /** What a correct receiver answers, e.g. "4xx". */
  expected: string;
  /** The decisive answer: the first that failed the case, else the slowest. */
  got: { status: number | null; ms: number; error: string | null };
  /** Why it failed, in the receiver doctor's words, or why it was not scored; empty when ok. */
  cause: string;
  /** What to change, in the receiver's language when Sandbay could tell it; empty when ok or blocked (the root cause carries it). */
  fix: string;
  /** The deliveries this case sent (trigger `check`), to open in the inspector. */
  deliveryIds: string[];
}

/** The scored battery: `sandbay check --json` prints exactly this. */
export interface CheckReport {
  url: string;
  passed: number;
  failed: number;
  /** Cases not scored because `valid` failed. */
  blocked: number;
  warnings: number;
  durationMs: number;
  /** When `valid` failed: the one cause to fix first, and the cases it blocks (the fix is the valid case's). */
  rootCause: CheckRootCause | null;
  cases: CheckCaseResult[];
}

/** The failure every blocked case waits on. */
export interface CheckRootCause {
  caseId: string;
  cause: string;
  blocks: string[];
}

/** A stored run of the battery against an endpoint (or a bare URL). */
export interface CheckRun {
  id: string;
  endpointId: string | null;
  url: string;
  status: 'running' | 'finished' | 'interrupted';
  /** How many cases the battery has; `report.cases` fills up to it while running. */
  total: number;
  createdAt: string;
  finishedAt: string | null;
  report: CheckReport;
}

/** Blocked cases say why in one line; the fix is the root cause's, given once. */
export const blockedCause = (by: string, reached: boolean) =>
  reached ? `Not scored: blocked by ${by}. While a correct delivery is refused, this case's answer proves nothing; fix ${by} first.` : `Not sent: the receiver did not answer ${by}.`;

/** A receiver that answered nothing at all: every case without an HTTP status (exit code 2). */
export const receiverUnreachable = (report: CheckReport): boolean =>
  report.cases.length > 0 && report.cases.every((c) => c.got.status === null);

/** Exit code of `sandbay check`: 0 every required case passed, 1 a case failed, 2 receiver unreachable. */
export const checkExitCode = (report: CheckReport): 0 | 1 | 2 => (receiverUnreachable(report) ? 2 : report.failed > 0 ? 1 : 0);
