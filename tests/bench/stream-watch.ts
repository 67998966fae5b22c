// An inspector stand-in for the bench: streams one sandbox's live feed and notes when each
// delivery.created arrived, so a run can measure what watching costs and how soon news shows.
import { request } from 'undici';

export interface StreamWatch {
  /** performance.now() at the arrival of each delivery.created, in order. */
  created: number[];
  close(): Promise<void>;
}

/** Opens GET /api/v1/events/stream with the sandbox's token and keeps reading until closed. */
export async function watchStream(url: string, token: string): Promise<StreamWatch> {
  const controller = new AbortController();
  const res = await request(`${url}/api/v1/events/stream`, {
    headers: { accept: 'text/event-stream', authorization: `Bearer ${token}` },
    signal: controller.signal,
  });
  if (res.statusCode !== 200) throw new Error(`bench: stream refused ${res.statusCode}`);
  const created: number[] = [];
  let buffer = '';
  const reading = (async () => {
    for await (const chunk of res.body) {
      buffer += chunk.toString();
      let end: number;
      while ((end = buffer.indexOf('\n\n')) >= 0) {
        if (/^event: ?delivery\.created$/m.test(buffer.slice(0, end))) created.push(performance.now());
        buffer = buffer.slice(end + 2);
      }
    }
  })().catch(() => {});
  return {
    created,
    close: async () => {
      controller.abort();
      await reading;
    },
  };
}
