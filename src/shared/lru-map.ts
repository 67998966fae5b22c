/**
 * A Map that keeps at most `capacity` entries, dropping the least recently used first: for
 * caches fed by what clients send (tokens, keys), which must not grow with every new one.
 */
export class LruMap<K, V> {
  private readonly entries = new Map<K, V>();

  constructor(readonly capacity: number) {
    if (!(capacity >= 1)) throw new RangeError('LruMap capacity must be at least 1');
  }

  /** The value, now the most recently used. */
  get(key: K): V | undefined {
    const value = this.entries.get(key);
    if (value === undefined) return undefined;
    // A Map iterates in insertion order: re-inserting moves the key to the young end.
    this.entries.delete(key);
    this.entries.set(key, value);
    return value;
  }

  set(key: K, value: V): this {
    this.entries.delete(key);
    this.entries.set(key, value);
    if (this.entries.size > this.capacity) this.entries.delete(this.entries.keys().next().value as K);
    return this;
  }

  delete(key: K): boolean {
    return this.entries.delete(key);
  }

  clear(): void {
    this.entries.clear();
  }

  get size(): number {
    return this.entries.size;
  }

  /** Entries from least to most recently used; deleting while iterating is safe. */
  [Symbol.iterator](): IterableIterator<[K, V]> {
    return this.entries.entries();
  }
}
