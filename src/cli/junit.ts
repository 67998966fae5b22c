import type { CheckReport } from '../shared/check-report.ts';

// XML 1.0 has no way to write most control characters, even escaped: they are dropped.
const xml = (text: string) =>
  text.replace(/[\u0000-\u0008\u000b\u000c\u000e-\u001f\ufffe\uffff]/g, '').replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
const seconds = (ms: number) => (ms / 1000).toFixed(3);

/** The report as JUnit XML for CI: one testcase per case, failures with their cause and fix, blocked cases skipped with the reason. */
export function junitXml(report: CheckReport, links: (deliveryId: string) => string): string {
  const cases = report.cases.map((c) => {
    const got = c.got.status === null ? (c.got.error ?? 'no answer') : `${c.got.status}`;
    const open = `    <testcase classname="sandbay.check" name="${xml(c.id)}" time="${seconds(c.got.ms)}"`;
    const deliveries = c.deliveryIds.map((id) => `delivery: ${links(id)}`).join('\n');
    if (c.status === 'blocked') {
      const reason = `not scored: blocked by ${c.blockedBy}${report.rootCause ? ` (${report.rootCause.cause})` : ''}`;
      return `${open}>\n      <skipped message="${xml(reason)}"/>\n    </testcase>`;
    }
    if (!c.ok) {
      const detail = [`expected ${c.expected}, got ${got}`, `cause: ${c.cause}`, `fix: ${c.fix}`, deliveries].filter(Boolean).join('\n');
      return `${open}>\n      <failure message="${xml(c.cause)}" type="expected ${xml(c.expected)}">${xml(detail)}</failure>\n    </testcase>`;
    }
    if (c.warning) return `${open}>\n      <system-out>${xml(`warning: answered in ${c.got.ms} ms (expected ${c.expected})`)}</system-out>\n    </testcase>`;
    return `${open}/>`;
  });
  const counts = `tests="${report.cases.length}" failures="${report.failed}" errors="0" skipped="${report.blocked}" time="${seconds(report.durationMs)}"`;
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
