/** At most `limit` concurrent holders per key (SPEC §5.2: 10 attempts in flight per endpoint). */
export class KeyedLimiter {
  private readonly active = new Map<string, number>();
  private readonly waiting = new Map<string, (() => void)[]>();

  constructor(private readonly limit: number) {}

  async acquire(key: string): Promise<() => void> {
    const count = this.active.get(key) ?? 0;
    if (count < this.limit) {
      this.active.set(key, count + 1);
    } else {
      await new Promise<void>((resolve) => {
        const queue = this.waiting.get(key) ?? [];
        queue.push(resolve);
        this.waiting.set(key, queue);
      });
    }
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.release(key);
    };
  }

  /** A slot now, or undefined when the key's are all held (no waiting): for a caller that refuses instead. */
  tryAcquire(key: string): (() => void) | undefined {
    const count = this.active.get(key) ?? 0;
    if (count >= this.limit) return undefined;
    this.active.set(key, count + 1);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.release(key);
    };
  }

  private release(key: string): void {
    const queue = this.waiting.get(key);
    const next = queue?.shift();
    if (queue && queue.length === 0) this.waiting.delete(key);
    if (next) return next(); // the slot passes straight to the next waiter
    const count = (this.active.get(key) ?? 1) - 1;
    if (count <= 0) this.active.delete(key);
    else this.active.set(key, count);
  }
}
