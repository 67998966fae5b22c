import type { Attempt } from '../shared/api-types.ts';
import { patternMatches, type Topic } from '../shared/topics.ts';
import type { Client } from './client.ts';
import { forwardedDiagnosis } from './listen-doctor.ts';
import { sandboxNowMs } from './delivery-format.ts';
import type { FeedMessage } from './live-feed.ts';
import { localTimestamp, relative } from './output.ts';

interface Target {
  topic: string;
  url: string | null;
  /** The --forward route that took it, if any. */
  route?: string | null;
}

/** A forwarding route: its temporary endpoint, and its name (`order.*`; null for --forward-to's one route). */
interface Route {
  endpoint: { id: string; url: string; secret?: string };
  name: string | null;
}

export interface PrinterOptions {
  /** Only deliveries to these endpoints (listen --forward-to / --forward); none: every delivery of the sandbox. */
  routes: Route[];
  /** Topic patterns to show. */
  topics: string[];
  json?: boolean;
  /** After each attempt, the receiver's answer: status, headers, body excerpt, time (--print-response). */
  printResponse?: boolean;
}

/** How much of a response body --print-response shows. */
const bodyExcerptChars = 500;

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
    const response = m.event === 'attempt.finished' && this.options.printResponse ? await this.response(m) : undefined;
    if (this.options.json)
      return this.writeJson({
        event: m.event,
        id: m.id,
        data: { ...m.data, topic: target.topic, url: target.url, ...(target.route ? { route: target.route } : {}) },
        ...(response ? { response } : {}),
      });
    const line = await this.line(m, target);
    if (line) process.stdout.write(`${localTimestamp()}  ${line}${target.route ? ` (route ${target.route})` : ''}\n`);
    if (response) process.stdout.write(responseLines(response));
    const secret = this.options.routes[0]?.endpoint.secret;
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
      const endpoint = String(d.endpointId ?? this.options.routes[0]?.endpoint.id ?? '');
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

  /** The attempt's answer as the inspector keeps it (status, headers, the first 4 KiB of the body, time). */
  private async response(m: FeedMessage): Promise<AttemptAnswer | undefined> {
    const delivery = await this.client
      .request<{ attempts: AttemptAnswer[] }>('GET', `/api/v1/webhooks/deliveries/${encodeURIComponent(m.data.id!)}`)
      .catch(() => undefined);
    const attempt = delivery?.attempts.find((a) => a.number === m.data.number);
    return (
      attempt && {
        number: attempt.number,
        responseStatus: attempt.responseStatus,
        responseHeaders: attempt.responseHeaders,
        responseBody: attempt.responseBody,
        durationMs: attempt.durationMs,
        error: attempt.error,
      }
    );
  }

  /** Which topic and URL a message is about, or null when it is not ours to show. */
  private async target(m: FeedMessage): Promise<Target | null> {
    const id = m.data.id!;
    if (this.targets.has(id)) return this.targets.get(id)!;
    const { routes } = this.options;
    let target: Target | null;
    if (routes.length > 0) {
      // Forwarding: only deliveries to our endpoints, known from their delivery.created.
      const route = routes.find((r) => r.endpoint.id === m.data.endpointId);
      target =
        m.event === 'delivery.created' && route
          ? { topic: m.data.topic, url: route.endpoint.url, route: route.name }
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

type AttemptAnswer = Pick<
  Attempt,
  'number' | 'responseStatus' | 'responseHeaders' | 'responseBody' | 'durationMs' | 'error'
>;

/** --print-response: the answer under its `<--` line, indented, the body cut at 500 characters. */
function responseLines(a: AttemptAnswer): string {
  const indent = (text: string) => text.replace(/^/gm, '      ');
  const status = a.responseStatus === null ? `no response (${a.error ?? 'no answer'})` : `HTTP ${a.responseStatus}`;
  const headers = Object.entries(a.responseHeaders).map(([k, v]) => `${k}: ${v}`);
  const body =
    a.responseBody.length > bodyExcerptChars
      ? `${a.responseBody.slice(0, bodyExcerptChars)}… (${a.responseBody.length} characters kept of the body)`
      : a.responseBody;
  return `${indent([`${status} in ${a.durationMs} ms`, ...headers, ...(body ? ['', body] : [])].join('\n'))}\n`;
}
