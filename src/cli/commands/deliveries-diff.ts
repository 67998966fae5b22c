import type { Command } from 'commander';
import type { DeliveryComparison } from '../../shared/api-types.ts';
import { sandboxClient, type ConnectionFlags } from '../client.ts';
import { CliError } from '../errors.ts';
import { connectionOptions } from '../options.ts';
import { printJson, say } from '../output.ts';

/** `dlv_…` or `dlv_…:2` (an attempt of it). */
function parseSide(value: string): { id: string; attempt?: number } {
  const match = /^([A-Za-z0-9_]+)(?::(\d+))?$/.exec(value);
  if (!match) throw new CliError(`${value} is not a delivery: give dlv_…, or dlv_…:N for its attempt N`);
  return { id: match[1], attempt: match[2] === undefined ? undefined : Number(match[2]) };
}

const shown = (v: unknown) => (v === undefined ? '(none)' : JSON.stringify(v));
const label = (s: DeliveryComparison['from']) => `${s.deliveryId}${s.attempt === null ? '' : ` attempt ${s.attempt}`}`;

/** The comparison as a reader scans it: `~` changed, `+` only in B, `-` only in A. */
function comparisonLines(c: DeliveryComparison): string[] {
  const headers = (list: DeliveryComparison['requestHeaders']) =>
    list.map((h) =>
      h.from === null
        ? `  + ${h.name}: ${h.to}`
        : h.to === null
          ? `  - ${h.name}: ${h.from}`
          : `  ~ ${h.name}: ${h.from} → ${h.to}`,
    );
  const lines = [`Comparing ${label(c.from)} (${c.from.topic}) with ${label(c.to)} (${c.to.topic})`, ''];
  lines.push(`Envelope: ${c.bodyIdentical ? 'the same bytes' : `${c.envelope.length} change(s)`}`);
  for (const e of c.envelope)
    lines.push(
      e.op === 'add'
        ? `  + ${e.path}: ${shown(e.to)}`
        : e.op === 'remove'
          ? `  - ${e.path}: ${shown(e.from)}`
          : `  ~ ${e.path}: ${shown(e.from)} → ${shown(e.to)}`,
    );
  lines.push(
    '',
    `Request headers: ${c.requestHeaders.length ? '' : 'the same'}`.trimEnd(),
    ...headers(c.requestHeaders),
  );
  lines.push('', `Signature inputs: ${c.signatureInputs.length ? '' : 'the same'}`.trimEnd());
  for (const s of c.signatureInputs) lines.push(`  ~ ${s.name}: ${shown(s.from)} → ${shown(s.to)}`);
  lines.push('');
  const r = c.response;
  if (!r) return [...lines, "Receiver's answers: one side has no attempt yet"];
  lines.push("Receiver's answers:");
  lines.push(`  status: ${r.status.from ?? 'no response'} → ${r.status.to ?? 'no response'}`);
  lines.push(`  time: ${r.durationMs.from} ms → ${r.durationMs.to} ms`);
  if (r.error.from !== r.error.to) lines.push(`  error: ${r.error.from ?? '(none)'} → ${r.error.to ?? '(none)'}`);
  lines.push(...headers(r.headers));
  if (r.body.same) lines.push('  body: the same');
  else
    lines.push(
      '  body:',
      ...r.body.from.split('\n').map((l) => `  - ${l}`),
      ...r.body.to.split('\n').map((l) => `  + ${l}`),
    );
  return lines;
}

/** `sandbay deliveries diff A B`: two deliveries, or two attempts (`dlv_…:1 dlv_…:2`), compared. */
export function deliveriesDiffCommand(deliveries: Command): void {
  const cmd = deliveries
    .command('diff <a> <b>')
    .description('compare two deliveries or attempts (dlv_…:N): envelope by path, headers, signature inputs, answers');
  for (const [flags, text] of connectionOptions) cmd.option(flags, text);
  // `deliveries` takes the same connection flags: commander gives them to the parent, so read both.
  cmd.action(async (a: string, b: string, _flags: unknown, self: Command) => {
    const flags = self.optsWithGlobals<ConnectionFlags & { json?: boolean }>();
    const [from, to] = [parseSide(a), parseSide(b)];
    const client = await sandboxClient(flags);
    const query = new URLSearchParams({ to: to.id });
    if (from.attempt !== undefined) query.set('attempt', String(from.attempt));
    if (to.attempt !== undefined) query.set('toAttempt', String(to.attempt));
    const comparison = await client.request<DeliveryComparison>(
      'GET',
      `/api/v1/webhooks/deliveries/${encodeURIComponent(from.id)}/compare?${query}`,
    );
    if (flags.json) return printJson(comparison);
    for (const line of comparisonLines(comparison)) say(line);
  });
}
