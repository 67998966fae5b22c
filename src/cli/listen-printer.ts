import { patternMatches, type Topic } from '../shared/topics.ts';
import type { Client } from './client.ts';
import { forwardedDiagnosis } from './listen-doctor.ts';
import { sandboxNowMs } from './delivery-format.ts';
import type { FeedMessage } from './live-feed.ts';
import { localTimestamp, relative } from './output.ts';

interface Target {
  topic: string;
  url: string | null;
}

export interface PrinterOptions {
  /** Only deliveries to this endpoint (listen --forward-to); otherwise every delivery of the sandbox. */
  endpoint?: { id: string; url: string; secret?: string };
  /** Topic patterns to show. */
  topics: string[];
  json?: boolean;
}

const cacheSize = 10_000;

/**
 * Turns the live feed into lines like the Stripe CLI's `listen`: `-->` when a delivery is
 * created, `<--` for each attempt's outcome, then a retry time or the dead-letter. Messages
 * are handled one at a time so lines keep the stream's order.
 */
export class ListenPrinter {
  private readonly targets = new Map<string, Target | null>();
  private queue = Promise.resolve();
  /** The endpoint a receiver's 410 Gone disabled (SPEC §5.3), until an attempt shows it enabled again. */
  private disabledEndpoint: string | undefined;

  constructor(
    private readonly client: Client,
    private readonly options: PrinterOptions,
  ) {}

  push(message: FeedMessage): void {
    this.queue = this.queue
      .then(() => this.handle(message))
      .catch((err) => this.note(`cannot show ${message.event}: ${(err as Error).message}`));
  }

  /** A status line (ready, connection lost…), JSON-shaped with --json. */
  note(text: string, json: Record<string, unknown> = { event: 'note', message: text }): void {
    if (this.options.json) this.writeJson(json);
    else process.stdout.write(`${text}\n`);
  }

  private writeJson(value: Record<string, unknown>): void {
    process.stdout.write(`${JSON.stringify(value)}\n`);
  }

  private async handle(m: FeedMessage): Promise<void> {
    if (m.event === 'reset') {
      this.targets.clear();
      const why =
        m.data.reason === 'sandbox_reset'
          ? 'the sandbox was reset'
          : 'the stream could not resume; some activity may be missing';
      return this.note(`${localTimestamp()}   --  ${why}`, { event: 'reset', id: m.id, data: m.data });
    }
    const target = await this.target(m);
    if (!target || !this.options.topics.some((p) => patternMatches(p, target.topic as Topic))) return;
    if (this.options.json)
      return this.writeJson({ event: m.event, id: m.id, data: { ...m.data, topic: target.topic, url: target.url } });
    const line = await this.line(m, target);
    if (line) process.stdout.write(`${localTimestamp()}  ${line}\n`);
    const secret = this.options.endpoint?.secret;
    const status = m.data.responseStatus as number | null | undefined;
    // A refused forward: the receiver's Sandbay-Echo (if it sent one) says what it verified.
    if (m.event === 'attempt.finished' && secret && status && status >= 400) {
      const diagnosis = await forwardedDiagnosis(this.client, m.data.id!, m.data.number as number, [secret]).catch(
        () => undefined,
      );
      for (const text of diagnosis ?? []) process.stdout.write(`${text}\n`);
    }
  }

  private async line(m: FeedMessage, target: Target): Promise<string | undefined> {
    const d = m.data;
    if (m.event === 'delivery.created')
      return ` --> ${target.topic} [${d.id}]${this.disabledEndpoint ? ' (waits: the endpoint is disabled)' : ''}`;
    if (m.event === 'attempt.finished') this.disabledEndpoint = undefined;
    if (m.event === 'delivery.updated' && d.endpointDisabled) {
      const endpoint = String(d.endpointId ?? this.options.endpoint?.id ?? '');
      this.disabledEndpoint = endpoint;
      return (
        `     410 Gone: Sandbay disabled endpoint ${endpoint}, as any sender of Standard Webhooks does; this and later deliveries wait [${d.id}]. ` +
        `Answer 2xx again, then enable it: Enable in the inspector, or PATCH /api/v1/webhooks/endpoints/${endpoint} {"enabled": true}`
      );
    }
    if (m.event === 'attempt.finished') {
      const outcome = d.responseStatus ?? 'ERR';
      const duplicate = d.trigger === 'duplicate' ? ' (chaos: sent again)' : '';
      return `<--  [${outcome}] POST ${target.url ?? '?'} [${d.id}] ${d.durationMs} ms${d.error ? ` ${d.error}` : ''}${duplicate}`;
    }
    const held = (d.chaos as { heldMs?: number } | undefined)?.heldMs;
    // No "attempt in Ns": the hold is that span, and on a busy machine this line can arrive after it ended.
    if (held) return `     held ${held} ms by chaos [${d.id}]`;
    if (d.status === 'dead')
      return ` xx  dead [${d.id}]${d.error ? ` ${d.error}` : ` after ${d.attemptCount} attempts`} — sandbay dlq replay ${d.id}`;
    if (d.status === 'pending' && d.nextAttemptAt)
      return `     next attempt ${relative(d.nextAttemptAt, await sandboxNowMs(this.client))} [${d.id}]`;
    return undefined;
  }

  /** Which topic and URL a message is about, or null when it is not ours to show. */
  private async target(m: FeedMessage): Promise<Target | null> {
    const id = m.data.id!;
    if (this.targets.has(id)) return this.targets.get(id)!;
    const { endpoint } = this.options;
    let target: Target | null;
    if (endpoint) {
      // Forwarding: only deliveries to our endpoint, known from their delivery.created.
      target =
        m.event === 'delivery.created' && m.data.endpointId === endpoint.id
          ? { topic: m.data.topic, url: endpoint.url }
          : null;
    } else {
      target = await this.client.request<Target>('GET', `/api/v1/webhooks/deliveries/${encodeURIComponent(id)}`).then(
        ({ topic, url }) => ({ topic, url }),
        () => null,
      );
    }
    this.targets.set(id, target);
    if (this.targets.size > cacheSize) this.targets.delete(this.targets.keys().next().value!);
    return target;
  }
}
