import { EventSource } from 'eventsource';
import { describeFailure, unreachableMessage, type Client } from './client.ts';
import { CliError } from './errors.ts';

/** One message of GET /api/v1/events/stream (SPEC §5.7). */
export interface FeedMessage {
  id: string;
  event: 'delivery.created' | 'delivery.updated' | 'attempt.finished' | 'reset';
  data: { id?: string; [field: string]: any };
}

const events: FeedMessage['event'][] = ['delivery.created', 'delivery.updated', 'attempt.finished', 'reset'];

export interface LiveFeed {
  /** Resolves when the stream first opens (a later reopen is reported to onConnectionChange). */
  opened: Promise<void>;
  /** Rejects with a one-line CliError when the server refuses the stream for good. */
  failed: Promise<never>;
  close(): void;
}

/**
 * Follows a sandbox's delivery activity over SSE with the eventsource package, which
 * reconnects with Last-Event-ID by itself; our fetch adds the auth headers EventSource
 * cannot set and keeps the problem detail of a refused connection for the error line.
 */
export function openLiveFeed(
  client: Client,
  onMessage: (m: FeedMessage) => void,
  onConnectionChange: (up: boolean) => void,
): LiveFeed {
  let refusal: string | undefined;
  const source = new EventSource(`${client.url}/api/v1/events/stream`, {
    fetch: async (input, init) => {
      const res = await fetch(input, { ...init, headers: { ...init.headers, ...client.authHeaders() } });
      if (!res.ok) {
        refusal = describeFailure(
          res.status,
          await res
            .clone()
            .json()
            .catch(() => undefined),
        );
      }
      return res;
    },
  });
  let up = false;
  let markOpened!: () => void;
  let fail!: (err: Error) => void;
  const opened = new Promise<void>((resolve) => (markOpened = resolve));
  const failed = new Promise<never>((_, reject) => (fail = reject));
  failed.catch(() => {});
  let everOpened = false;
  // Reconnects may take as long as they like; the first connection has the CLI's request timeout.
  const openTimer = setTimeout(() => {
    source.close();
    fail(client.timedOut('GET', '/api/v1/events/stream'));
  }, client.connection.timeoutMs);
  source.onopen = () => {
    clearTimeout(openTimer);
    up = true;
    if (everOpened) onConnectionChange(true);
    everOpened = true;
    markOpened();
  };
  source.onerror = () => {
    if (source.readyState === EventSource.CLOSED) {
      clearTimeout(openTimer);
      fail(new CliError(refusal ?? `the event stream at ${client.url} closed`));
    } else if (up) {
      up = false;
      onConnectionChange(false);
    } else if (!refusal) {
      // Never connected: report it the way every other command does, rather than retry silently.
      clearTimeout(openTimer);
      fail(new CliError(unreachableMessage(client.connection)));
    }
  };
  for (const event of events) {
    source.addEventListener(event, (e) => onMessage({ id: e.lastEventId, event, data: JSON.parse(e.data) }));
  }
  return {
    opened,
    failed,
    close: () => {
      clearTimeout(openTimer);
      source.close();
    },
  };
}
