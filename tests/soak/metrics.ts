/** What the soak counts as it goes: requests and deliveries done, errors by kind, memory peaks. */
export class SoakMetrics {
  requests = 0;
  /** Requests answered, by kind. */
  readonly done = new Map<string, number>();
  /** The slowest answer seen, by kind, in ms. */
  readonly slowest = new Map<string, number>();
  readonly errors = new Map<string, number>();
  maxRssBytes = 0;
  maxHeapBytes = 0;

  error(kind: string): void {
    this.errors.set(kind, (this.errors.get(kind) ?? 0) + 1);
  }

  /**
   * Records the process's memory now; returns it. With `collect` (and node --expose-gc) a full
   * collection runs first, so heapUsed is what is really retained: the figure that shows a leak.
   */
  sampleMemory(collect = false): NodeJS.MemoryUsage {
    if (collect) (globalThis as { gc?: () => void }).gc?.();
    const usage = process.memoryUsage();
    this.maxRssBytes = Math.max(this.maxRssBytes, usage.rss);
    this.maxHeapBytes = Math.max(this.maxHeapBytes, usage.heapUsed);
    return usage;
  }

  /** Runs one API call, counting it and classifying what went wrong (HTTP status or network error). */
  async call(
    kind: string,
    run: () => Promise<Response>,
    ok: (status: number) => boolean = (s) => s < 300,
  ): Promise<Response | undefined> {
    const started = performance.now();
    try {
      const res = await run();
      this.slowest.set(kind, Math.max(this.slowest.get(kind) ?? 0, performance.now() - started));
      this.requests++;
      this.done.set(kind, (this.done.get(kind) ?? 0) + 1);
      if (!ok(res.status)) {
        this.error(`${kind}: HTTP ${res.status}`);
        await res.body?.cancel();
        return undefined;
      }
      return res;
    } catch (err) {
      this.error(`${kind}: ${(err as { cause?: { code?: string } }).cause?.code ?? (err as Error).name}`);
      return undefined;
    }
  }

  slowestSummary(): string {
    return [...this.slowest]
      .sort((a, b) => b[1] - a[1])
      .slice(0, 3)
      .map(([kind, ms]) => `${kind} ${(ms / 1000).toFixed(1)} s`)
      .join(', ');
  }

  errorSummary(): string {
    if (this.errors.size === 0) return 'none';
    return [...this.errors]
      .sort((a, b) => b[1] - a[1])
      .map(([kind, n]) => `${kind} ×${n}`)
      .join(', ');
  }
}

export const mb = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(0)} MB`;
