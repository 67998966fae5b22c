import { create } from 'zustand';

/** What is down: the database (503), its disk (507), or Sandbay itself (no answer). */
type OutageKind = 'database' | 'storage' | 'server';

interface OutageState {
  outage: { kind: OutageKind; since: number } | null;
  report(kind: OutageKind): void;
  /** Something answered normally: a read clears a database or server outage, a write any outage. */
  recovered(by: 'read' | 'write'): void;
}

export const useOutage = create<OutageState>()((set, get) => ({
  outage: null,
  report(kind) {
    const current = get().outage;
    if (current?.kind !== kind) set({ outage: { kind, since: current?.since ?? Date.now() } });
  },
  recovered(by) {
    const current = get().outage;
    // A full disk still serves reads: only a write that went through says it is over.
    if (current && (by === 'write' || current.kind !== 'storage')) set({ outage: null });
  },
}));

/** How often the tab asks the engine how its database is (GET /api/v1/health reads no database). */
const healthEveryMs = 3_000;

/**
 * Watches the engine's health while the tab is open, so an idle page shows an outage too instead of
 * looking live while nothing can change: the database as the engine's heartbeat last found it, or no
 * answer from Sandbay at all.
 */
export function watchHealth(apiBase: string): () => void {
  const check = async () => {
    if (document.visibilityState === 'hidden') return;
    try {
      const res = await fetch(`${apiBase}/api/v1/health`, { cache: 'no-store' });
      const { database } = (await res.json()) as { database?: 'ok' | 'unavailable' | 'storage_full' };
      if (database === 'unavailable') useOutage.getState().report('database');
      else if (database === 'storage_full') useOutage.getState().report('storage');
      else useOutage.getState().recovered('read');
    } catch {
      useOutage.getState().report('server');
    }
  };
  const timer = setInterval(() => void check(), healthEveryMs);
  // Cannot reject: check() catches: no answer is reported as an outage.
  void check();
  return () => clearInterval(timer);
}
