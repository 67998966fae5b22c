import type { Command } from 'commander';
import type { DlqReplayJob } from '../../shared/api-types.ts';
import { apiCommand } from '../options.ts';
import { sandboxClient, type ConnectionFlags } from '../client.ts';
import { CliError } from '../errors.ts';
import { printJson, say } from '../output.ts';
import { describeJob, followJob, jobPath } from '../replay-job.ts';
import { listOptions, printDeliveryPage, type ListFlags } from './deliveries.ts';
import { printAttempt } from './resend.ts';

interface ReplayFlags extends ConnectionFlags {
  all?: boolean;
  topic?: string;
  endpoint?: string;
  wait: boolean;
}

/**
 * `sandbay dlq list`, `dlq replay <id>|--all [--topic T] [--endpoint ID] [--no-wait]`,
 * `dlq status [jobId]` and `dlq cancel <jobId>` (SPEC §5.3).
 */
export function dlqCommand(program: Command): void {
  const dlq = program.command('dlq').description('the dead-letter queue: deliveries that failed all five attempts');
  listOptions(apiCommand(dlq, 'list', 'list dead deliveries, newest first')).action(async (flags: ListFlags) => {
    const client = await sandboxClient(flags);
    await printDeliveryPage(
      client,
      '/api/v1/webhooks/dlq',
      { topic: flags.topic, endpointId: flags.endpoint, limit: flags.limit, cursor: flags.cursor },
      flags.json,
    );
  });
  apiCommand(
    dlq,
    'replay [deliveryId]',
    'replay one dead delivery, or --all of them (a job on the server, followed here)',
  )
    .option('--all', 'replay every dead delivery (narrow with --topic / --endpoint)')
    .option('--topic <topic>', 'with --all: only this topic')
    .option('--endpoint <id>', 'with --all: only this endpoint (whe_…)')
    .option('--no-wait', 'with --all: start the job and print it instead of following it')
    .action(async (id: string | undefined, flags: ReplayFlags) => {
      if (id && (flags.all || flags.topic || flags.endpoint))
        throw new CliError('give a delivery id or --all, not both');
      if (!id && !flags.all) throw new CliError('give a delivery id to replay, or --all');
      const client = await sandboxClient(flags);
      if (id)
        return printAttempt(
          client,
          await client.request('POST', `/api/v1/webhooks/dlq/${encodeURIComponent(id)}/replay`),
          flags.json,
        );
      const started = await client.request<DlqReplayJob>('POST', '/api/v1/webhooks/dlq/replay', {
        body: { topic: flags.topic, endpointId: flags.endpoint },
      });
      if (!flags.wait) {
        if (flags.json) return printJson(started);
        return say(
          `Started ${started.id}: replaying ${started.total} dead deliveries. Follow it: sandbay dlq status ${started.id}`,
        );
      }
      const job = await followJob(client, started);
      if (job.state !== 'completed') throw new CliError(describeJob(job));
      if (flags.json) return printJson(job);
      say(describeJob(job));
    });
  apiCommand(dlq, 'status [jobId]', "a DLQ replay job's progress (default: the latest)").action(
    async (id: string | undefined, flags: ConnectionFlags) => {
      const client = await sandboxClient(flags);
      const job = id
        ? await client.request<DlqReplayJob>('GET', jobPath(id))
        : (await client.request<{ data: DlqReplayJob[] }>('GET', '/api/v1/webhooks/dlq-replays?limit=1')).data[0];
      if (!job) throw new CliError('no DLQ replay yet: sandbay dlq replay --all starts one');
      if (flags.json) return printJson(job);
      say(describeJob(job));
    },
  );
  apiCommand(dlq, 'cancel <jobId>', 'cancel a running DLQ replay (replays in flight finish)').action(
    async (id: string, flags: ConnectionFlags) => {
      const client = await sandboxClient(flags);
      const job = await client.request<DlqReplayJob>('POST', `${jobPath(id)}/cancel`);
      if (flags.json) return printJson(job);
      say(describeJob(job));
    },
  );
}
