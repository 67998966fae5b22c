import { openAsBlob, statSync } from 'node:fs';
import type { Command } from 'commander';
import type { CreatedSandbox, EnabledEndpoints } from '../../shared/api-types.ts';
import { sandboxFileMediaType, type ImportReport } from '../../shared/sandbox-file.ts';
import { Client, resolveConnection, sandboxClient, type ConnectionFlags } from '../client.ts';
import { formatBytes, longRequest, saveBody } from '../download.ts';
import { CliError } from '../errors.ts';
import { apiCommand } from '../options.ts';
import { printJson, say } from '../output.ts';

interface ExportFlags extends ConnectionFlags {
  out: string;
  includeSecrets?: boolean;
  notes?: string;
}

/**
 * `sandbay export --out demo.sandbay [--include-secrets] [--notes TEXT]`: the sandbox as one file (docs/portable.md).
 */
async function exportSandbox(flags: ExportFlags): Promise<void> {
  const client = await sandboxClient(flags);
  const query = new URLSearchParams();
  if (flags.includeSecrets) query.set('includeSecrets', 'true');
  if (flags.notes) query.set('notes', flags.notes);
  const res = await longRequest(client, 'GET', `/api/v1/sandbox/export${query.size ? `?${query}` : ''}`);
  const bytes = await saveBody(res, flags.out);
  const sandbox = await client.request<{ id: string; name: string }>('GET', '/api/v1/sandbox').catch(() => undefined);
  if (flags.json)
    return printJson({ file: flags.out, bytes, sandbox, secrets: flags.includeSecrets ? 'included' : 'omitted' });
  say(
    `Wrote ${flags.out} (${formatBytes(bytes)}): sandbox ${sandbox ? `${sandbox.id} "${sandbox.name}"` : ''}`.trimEnd(),
  );
  say(
    flags.includeSecrets
      ? 'Secrets included: treat the file like a password. An import signs with the same endpoint secrets.'
      : 'Secrets omitted: an import issues new endpoint secrets (--include-secrets keeps them).',
  );
}

/** `sandbay import demo.sandbay [--name NAME]`: a new sandbox from a file, with new credentials. */
async function importSandbox(file: string, flags: ConnectionFlags & { name?: string }): Promise<void> {
  let size: number;
  try {
    size = statSync(file).size;
  } catch {
    throw new CliError(`cannot read ${file}`);
  }
  // A new sandbox: no sandbox needs to be named, and the admin key is not needed (anyone may create one).
  const client = new Client(resolveConnection(flags));
  const query = flags.name ? `?${new URLSearchParams({ name: flags.name })}` : '';
  const res = await longRequest(client, 'POST', `/api/v1/sandboxes/import${query}`, {
    body: await openAsBlob(file),
    headers: { 'content-type': sandboxFileMediaType },
  });
  const imported = (await res.json()) as CreatedSandbox & { report: ImportReport };
  if (flags.json) return printJson(imported);
  const { sandbox, credentials, report } = imported;
  const rows = ['orders', 'events', 'deliveries', 'attempts'].map((t) => `${report.rows[t] ?? 0} ${t}`).join(', ');
  say(`Imported ${file} (${formatBytes(size)}) as sandbox ${sandbox.id} "${sandbox.name}" in ${report.durationMs} ms`);
  say(
    `  from ${report.source.sandboxId}, exported ${report.source.exportedAt} by Sandbay ${report.source.sandbayVersion} (${report.source.driver})`,
  );
  say(`  ${rows}`);
  say(`  sandbox clock: ${report.clock.now} (resumed where the file left it)`);
  if (report.secrets === 'issued') {
    say('  secrets: the file had none, so new ones were issued; past attempts were signed with the old ones');
    for (const e of report.newSecrets)
      say(
        `    ${e.endpointId} ${e.url} signs with a new secret (GET /api/v1/webhooks/endpoints/${e.endpointId}/secrets shows it)`,
      );
  } else say('  secrets: imported from the file');
  say(
    report.signature === 'signed-by-this-sandbay'
      ? '  signature: signed by this Sandbay (the file is as it exported it)'
      : '  signature: unsigned (not exported by this Sandbay, or edited since: checked like any input)',
  );
  const paused = report.receivers.endpoints.length + report.receivers.deadLettered.length;
  if (paused > 0) say('  receivers the file names (nothing was sent; enable an endpoint to resume its deliveries):');
  if (report.receivers.endpoints.length > 0)
    say(`    (sandbay resume-imported --sandbox ${sandbox.id} enables them all in one go)`);
  for (const e of report.receivers.endpoints) say(`    ${e.endpointId} ${e.url} (${e.pendingDeliveries} pending)`);
  for (const u of report.receivers.deadLettered)
    say(`    ${u.url}: ${u.deliveries} test webhook(s) dead-lettered (replay to send)`);
  if (report.notes) say(`  notes: ${report.notes}`);
  say(`  access token: ${credentials.accessToken}`);
  say(`  inspector: ${client.url}/sandboxes/${sandbox.id}/deliveries`);
}

/**
 * `sandbay resume-imported`: enables every endpoint an import paused in one action; the ones the outbound policy
 * refuses stay off and are named.
 */
async function resumeImported(flags: ConnectionFlags): Promise<void> {
  const client = await sandboxClient(flags);
  const result = await client.request<EnabledEndpoints>('POST', '/api/v1/webhooks/endpoints/enable', {
    body: { disabledReason: 'imported' },
  });
  if (flags.json) return printJson(result);
  if (result.enabled.length + result.refused.length === 0) return say('No endpoint is paused by an import.');
  for (const e of result.enabled) say(`enabled ${e.id} ${e.url}: its pending deliveries resume`);
  for (const e of result.refused) say(`still disabled ${e.endpointId} ${e.url}: ${e.message}`);
}

export function portableCommands(program: Command): void {
  apiCommand(
    program,
    'export',
    'write the sandbox to one file: data, endpoints, catchers, events, deliveries, DLQ and clock',
  )
    .requiredOption('--out <file>', 'the file to write, e.g. demo.sandbay')
    .option(
      '--include-secrets',
      'also write endpoint secrets and the webhook test secret (otherwise an import issues new ones)',
    )
    .option('--notes <text>', 'notes about the scenario, carried in the file')
    .action(exportSandbox);
  apiCommand(program, 'import <file>', 'make a new sandbox from a file written by sandbay export')
    .option('--name <name>', "the new sandbox's name (default: the file's)")
    .action(importSandbox);
  apiCommand(
    program,
    'resume-imported',
    'enable every endpoint an import paused (their pending deliveries resume); the outbound policy still applies',
  ).action(resumeImported);
}
