import { useEffect, useState, useSyncExternalStore } from 'react';

// One ticker for every countdown on the page, instead of an interval per row.
let now = Date.now();
const tickers = new Set<() => void>();
let interval: ReturnType<typeof setInterval> | undefined;

function subscribeTicker(onTick: () => void): () => void {
  tickers.add(onTick);
  interval ??= setInterval(() => {
    now = Date.now();
    for (const t of tickers) t();
  }, 1000);
  return () => {
    tickers.delete(onTick);
    if (tickers.size === 0) {
      clearInterval(interval);
      interval = undefined;
    }
  };
}

/** The real time, updated every second while mounted. */
export function useNow(): number {
  return useSyncExternalStore(subscribeTicker, () => now);
}

/** `value`, once it has stopped changing for `ms`. */
export function useDebounced<T>(value: T, ms: number): T {
  const [settled, setSettled] = useState(value);
  useEffect(() => {
    const t = setTimeout(() => setSettled(value), ms);
    return () => clearTimeout(t);
  }, [value, ms]);
  return settled;
}

/** Runs an async action, tracking whether it is busy and the error it threw (for inline messages). */
export function useAction<A extends unknown[], R>(action: (...args: A) => Promise<R>) {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<Error | null>(null);
  const run = async (...args: A): Promise<R | undefined> => {
    setBusy(true);
    setError(null);
    try {
      return await action(...args);
    } catch (err) {
      setError(err as Error);
      return undefined;
    } finally {
      setBusy(false);
    }
  };
  return { run, busy, error, setError };
}
