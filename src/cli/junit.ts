import { notVerified, type CheckReport } from '../shared/check-report.ts';

// XML 1.0 has no way to write most control characters, even escaped: they are dropped.
const xml = (text: string) =>
  text
    .replace(/[\u0000-\u0008\u000b\u000c\u000e-\u001f\ufffe\uffff]/g, '')
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;');
const seconds = (ms: number) => (ms / 1000).toFixed(3);

/**
 * The report as JUnit XML for CI: one testcase per case, failures with their cause and fix (the root cause's also lists
 * the cases it blocks), blocked cases skipped naming the case that blocks them.
 */
export function junitXml(report: CheckReport, links: (deliveryId: string) => string): string {
  const cases = report.cases.map((c) => {
    const got = c.got.status === null ? (c.got.error ?? 'no answer') : `${c.got.status}`;
    const open = `    <testcase classname="sandbay.check" name="${xml(c.id)}" time="${seconds(c.got.ms)}"`;
    const deliveries = c.deliveryIds.map((id) => `delivery: ${links(id)}`).join('\n');
    if (c.status === 'blocked') {
      // Short, naming the case to fix: the cause itself is written once, on that case's <failure>.
      const reason = `not scored: blocked by ${c.blockedBy}, which failed (its failure has the cause and fix)`;
      return `${open}>\n      <skipped message="${xml(reason)}"/>\n    </testcase>`;
    }
    if (!c.ok) {
      const blocks =
        report.rootCause?.caseId === c.id && report.rootCause.blocks.length > 0
          ? `blocks: ${report.rootCause.blocks.join(', ')} (not scored until ${c.id} passes)`
          : '';
      const detail = [`expected ${c.expected}, got ${got}`, `cause: ${c.cause}`, `fix: ${c.fix}`, blocks, deliveries]
        .filter(Boolean)
        .join('\n');
      return `${open}>\n      <failure message="${xml(c.cause)}" type="expected ${xml(c.expected)}">${xml(detail)}</failure>\n    </testcase>`;
    }
    // Passed on its answers, but what it is about was not checked: skipped, so CI does not count it as proven.
    if (c.status === 'passed' && !c.verified)
      return `${open}>\n      <skipped message="${xml(`not verified: ${notVerified(c)}`)}"/>\n    </testcase>`;
    if (c.warning)
      return `${open}>\n      <system-out>${xml(`warning: answered in ${c.got.ms} ms (expected ${c.expected})`)}</system-out>\n    </testcase>`;
    return `${open}/>`;
  });
  const unverified = report.cases.filter((c) => c.status === 'passed' && !c.verified).length;
  const counts = `tests="${report.cases.length}" failures="${report.failed}" errors="0" skipped="${report.blocked + unverified}" time="${seconds(report.durationMs)}"`;
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<testsuites name="sandbay check" ${counts}>`,
    `  <testsuite name="${xml(`receiver check of ${report.url}`)}" ${counts}>`,
    ...cases,
    '  </testsuite>',
    '</testsuites>',
    '',
  ].join('\n');
}
