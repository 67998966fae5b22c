import { assertDocumented } from './openapi-contract.ts';

/** A minimal SSE reader over fetch for tests: collects { id, event, data } messages. */
export interface SseMessage {
  id?: string;
  event: string;
  data: any;
}

export class SseClient {
  readonly messages: SseMessage[] = [];
  private controller = new AbortController();
  private done?: Promise<void>;

  constructor(
    private readonly url: string,
    private readonly headers: Record<string, string>,
  ) {}

  async open(): Promise<Response> {
    const res = await fetch(this.url, {
      headers: { accept: 'text/event-stream', ...this.headers },
      signal: this.controller.signal,
    });
    const { origin, pathname, search } = new URL(this.url);
    // A stream is checked by its head; a refusal by its body too (read from a clone the caller can still read).
    const body = res.ok ? undefined : await res.clone().json();
    await assertDocumented(origin, {
      method: 'GET',
      path: pathname + search,
      status: res.status,
      contentType: res.headers.get('content-type'),
      body,
      streamed: res.ok,
    });
    if (res.ok && res.body) this.done = this.pump(res.body).catch(() => {});
    return res;
  }

  async waitFor(match: (m: SseMessage) => boolean, timeoutMs = 5000): Promise<SseMessage> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const found = this.messages.find(match);
      if (found) return found;
      if (Date.now() > deadline) throw new Error(`no matching SSE message; got ${JSON.stringify(this.messages)}`);
      await new Promise((r) => setTimeout(r, 10));
    }
  }

  close(): void {
    this.controller.abort();
  }

  private async pump(body: ReadableStream<Uint8Array>): Promise<void> {
    const decoder = new TextDecoder();
    let buffer = '';
    for await (const chunk of body as unknown as AsyncIterable<Uint8Array>) {
      buffer += decoder.decode(chunk, { stream: true });
      let end: number;
      while ((end = buffer.indexOf('\n\n')) >= 0) {
        const block = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        const message: SseMessage = { event: 'message', data: '' };
        const data: string[] = [];
        for (const line of block.split('\n')) {
          if (line.startsWith('id:')) message.id = line.slice(3).trim();
          else if (line.startsWith('event:')) message.event = line.slice(6).trim();
          else if (line.startsWith('data:')) data.push(line.slice(5).trimStart());
        }
        if (data.length === 0) continue;
        message.data = JSON.parse(data.join('\n'));
        this.messages.push(message);
      }
    }
  }
}
