import type { StreamMessage } from '../../shared/api-types.ts';

export type StreamStatus = 'idle' | 'connecting' | 'live' | 'reconnecting';

const events: StreamMessage['event'][] = [
  'delivery.created',
  'delivery.updated',
  'attempt.finished',
  'check.updated',
  'clock.advanced',
  'job.failed',
  'reset',
];
const coalesceMs = 16;
const maxRetryMs = 15_000;

/**
 * The tab's one live connection (SPEC §5.7): a single EventSource serves every view.
 * Messages are handed to listeners in small batches; a dropped connection resumes from the
 * last message id (the browser sends Last-Event-ID; after a hard failure we reopen with
 * ?lastEventId=), and the server answers `reset` when it cannot fill the gap.
 */
export class LiveStream {
  private source?: EventSource;
  private sandboxId?: string;
  private lastEventId?: string;
  private pending: StreamMessage[] = [];
  private flushTimer?: ReturnType<typeof setTimeout>;
  private retryTimer?: ReturnType<typeof setTimeout>;
  private retryMs = 1000;
  private readonly listeners = new Set<(messages: StreamMessage[]) => void>();

  constructor(
    private readonly apiBase: string,
    private readonly onStatus: (status: StreamStatus) => void,
  ) {}

  /** Follows one sandbox; switching sandboxes replaces the connection (still one per tab). */
  follow(sandboxId: string | null): void {
    if (sandboxId === this.sandboxId) return;
    this.close();
    this.sandboxId = sandboxId ?? undefined;
    this.lastEventId = undefined;
    if (sandboxId) this.open();
  }

  subscribe(listener: (messages: StreamMessage[]) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  close(): void {
    clearTimeout(this.retryTimer);
    this.source?.close();
    this.source = undefined;
    this.onStatus('idle');
  }

  private open(): void {
    const params = new URLSearchParams({ sandbox: this.sandboxId! });
    if (this.lastEventId) params.set('lastEventId', this.lastEventId);
    const source = new EventSource(`${this.apiBase}/api/v1/events/stream?${params}`);
    this.source = source;
    this.onStatus('connecting');
    for (const name of events) source.addEventListener(name, (e) => this.receive(name, e as MessageEvent<string>));
    source.onopen = () => {
      this.retryMs = 1000;
      this.onStatus('live');
    };
    source.onerror = () => {
      if (source !== this.source) return;
      if (source.readyState !== EventSource.CLOSED) return this.onStatus('reconnecting'); // the browser retries by itself
      // The server refused or went away for good (a restart, a 401): reopen ourselves, backing off.
      this.onStatus('reconnecting');
      clearTimeout(this.retryTimer);
      this.retryTimer = setTimeout(() => {
        if (source === this.source) this.open();
      }, this.retryMs);
      this.retryMs = Math.min(this.retryMs * 2, maxRetryMs);
    };
  }

  private receive(event: StreamMessage['event'], e: MessageEvent<string>): void {
    if (e.lastEventId) this.lastEventId = e.lastEventId;
    let data: StreamMessage['data'] = {};
    try {
      data = JSON.parse(e.data) ?? {};
    } catch {
      // a message we cannot read still counts for resuming; its view catches up on the next one
    }
    this.pending.push({ event, data });
    this.flushTimer ??= setTimeout(() => this.flush(), coalesceMs);
  }

  private flush(): void {
    this.flushTimer = undefined;
    const batch = this.pending;
    this.pending = [];
    for (const l of this.listeners) l(batch);
  }
}
