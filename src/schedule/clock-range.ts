/**
 * How far a sandbox's clock may stand from real time for the engine to run its work: ±100 years, sandbox
 * times well inside what both JavaScript dates and PostgreSQL timestamps hold, whatever retry schedule or
 * job is added to them. A sandbox stored beyond it (a row written by another version, a crafted file) is
 * quarantined, not run (docs/decisions/quarantined-rows.md).
 */
export const maxClockOffsetMs = 100 * 365.25 * 86_400_000;

/** SQL: the tenants row `alias` has a clock the engine can run work on (engine-wide polls select only those). */
export const clockInRangeSql = (alias: string) =>
  `(${alias}.clock_offset_ms between ${-maxClockOffsetMs} and ${maxClockOffsetMs})`;

/**
 * SQL: the sandbox `alias`'s now. The offset is clamped to the range, because SQL does not promise to test
 * clockInRangeSql before computing this: one sandbox's clock must never fail a statement over every sandbox.
 */
export const sandboxNowSql = (alias: string) =>
  `(now() + least(greatest(${alias}.clock_offset_ms, ${-maxClockOffsetMs}), ${maxClockOffsetMs}) * interval '1 ms')`;
