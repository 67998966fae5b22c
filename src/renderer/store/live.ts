import { LiveStream } from '../api/stream.ts';
import { useApp } from './app.ts';
import { useCatchers } from './catchers.ts';
import { useChecks } from './checks.ts';
import { useDetail } from './detail.ts';
import { useDlqReplay } from './dlq-replay.ts';
import { useEndpoints } from './endpoints.ts';
import { useFailedJobs } from './failed-jobs.ts';
import { useDeliveryList, useDlqList } from './list.ts';

/** Reloads everything shown for the sandbox (after a reset, or when the stream could not resume). */
export function reloadSandboxData(): void {
  // Cannot reject: load(), refresh() and refreshClock() catch: their errors show in their stores.
  for (const list of [useDeliveryList, useDlqList]) if (list.getState().loaded) void list.getState().load();
  void useDetail.getState().refresh();
  useDetail.getState().forgetSecrets();
  if (useEndpoints.getState().loaded) void useEndpoints.getState().load();
  if (useCatchers.getState().loaded)
    void useCatchers
      .getState()
      .load()
      .catch(() => {});
  void useApp.getState().refreshClock();
  void useFailedJobs.getState().load();
}

/** Forgets the previous sandbox's data when another one is selected. */
function clearSandboxData(): void {
  useDeliveryList.getState().clear();
  useDlqList.getState().clear();
  useDlqReplay.getState().clear();
  useDetail.getState().open(null);
  useDetail.getState().forgetSecrets();
  useEndpoints.getState().clear();
  useCatchers.getState().clear();
  useChecks.getState().clear();
  useFailedJobs.getState().clear();
}

/**
 * Connects the tab's one stream to the stores: it follows the selected sandbox and routes
 * each batch of messages to every view's store.
 */
export async function startLive(): Promise<LiveStream> {
  const { session } = useApp.getState();
  // A key from the preload or from this tab's storage may predate the admin cookie that
  // EventSource relies on (it cannot send headers): opening the ready URL sets it.
  if (session.adminKey && !session.cookieFresh) {
    await fetch(`/?key=${encodeURIComponent(session.adminKey)}`, {
      cache: 'no-store',
      credentials: 'same-origin',
    }).catch(() => {});
  }
  const stream = new LiveStream(session.apiBase, (status) => useApp.getState().setConnection(status));
  stream.subscribe((messages) => {
    if (messages.some((m) => m.event === 'reset')) return reloadSandboxData();
    useDeliveryList.getState().applyLive(messages);
    useDlqList.getState().applyLive(messages);
    useDetail.getState().applyLive(messages);
    useChecks.getState().applyLive(messages);
    if (messages.some((m) => m.event === 'attempt.finished')) useCatchers.getState().refreshLogs();
    const clock = messages.findLast((m) => m.event === 'clock.advanced' && m.data.offsetSeconds !== undefined);
    if (clock) useApp.getState().setClockOffset(clock.data.offsetSeconds! * 1000);
    // Cannot reject: load() catches.
    if (messages.some((m) => m.event === 'job.failed')) void useFailedJobs.getState().load();
    // A 410 Gone turned an endpoint off: the endpoints view shows why, and offers to turn it back on.
    if (messages.some((m) => m.data.endpointDisabled) && useEndpoints.getState().loaded)
      // Cannot reject: load() catches: the error shows in the endpoints view.
      void useEndpoints.getState().load();
  });
  stream.follow(useApp.getState().sandboxId);
  useApp.subscribe((state, previous) => {
    if (state.sandboxId === previous.sandboxId) return;
    clearSandboxData();
    stream.follow(state.sandboxId);
  });
  return stream;
}
