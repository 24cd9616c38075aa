/**
 * A cache bounded by the bytes its entries hold, least recently used out, that also shares work in
 * flight: concurrent requests for one key wait for the same computation instead of each decoding
 * the same picture (fifty renders of one picture would otherwise hold fifty decodes at once).
 */

/** What a cache holds and how many bytes it may hold. */
export interface ByteCacheStats {
  readonly entries: number;
  readonly bytes: number;
  readonly limit: number;
  /** The most bytes ever held at once: the budget is kept if this never passes `limit`. */
  readonly peak: number;
}

/** A byte-budget LRU cache of values whose size is known when they are stored. */
export class ByteCache<V> {
  private readonly _entries = new Map<string, { value: V; bytes: number }>();
  private readonly _pending = new Map<string, Promise<V>>();
  private _bytes = 0;
  private _peak = 0;

  constructor(
    readonly limit: number,
    private readonly _sizeOf: (value: V) => number
  ) {}

  get stats(): ByteCacheStats {
    return { entries: this._entries.size, bytes: this._bytes, limit: this.limit, peak: this._peak };
  }

  get(key: string): V | undefined {
    const entry = this._entries.get(key);
    if (!entry) {
      return undefined;
    }
    // Re-inserting moves the entry to the end: Map order is the recency order.
    this._entries.delete(key);
    this._entries.set(key, entry);
    return entry.value;
  }

  /**
   * The most recently used value whose key starts with `prefix` and that `accept`s (and it becomes
   * the most recent), or `undefined`: a lookup by what a value covers rather than by exact key.
   */
  find(prefix: string, accept: (value: V) => boolean): V | undefined {
    let found: string | undefined;
    for (const [key, entry] of this._entries) {
      if (key.startsWith(prefix) && accept(entry.value)) {
        found = key;
      }
    }
    return found === undefined ? undefined : this.get(found);
  }

  /** Store `value`; a value larger than the whole budget is not kept. */
  set(key: string, value: V): void {
    this.delete(key);
    const bytes = this._sizeOf(value);
    if (bytes > this.limit) {
      return;
    }
    // Make room first, so the budget holds at every moment, not only after the insert.
    for (const [oldKey, old] of this._entries) {
      if (this._bytes + bytes <= this.limit) {
        break;
      }
      this._entries.delete(oldKey);
      this._bytes -= old.bytes;
    }
    this._entries.set(key, { value, bytes });
    this._bytes += bytes;
    this._peak = Math.max(this._peak, this._bytes);
  }

  delete(key: string): void {
    const old = this._entries.get(key);
    if (old) {
      this._entries.delete(key);
      this._bytes -= old.bytes;
    }
  }

  /** Forget every entry (work in flight still completes, and is stored). */
  clear(): void {
    this._entries.clear();
    this._bytes = 0;
  }

  /**
   * The cached value, or the one `create` makes (stored for next time). Callers that ask for the
   * same key while it is being made share that one computation; a failure is not cached.
   */
  async getOrCreate(key: string, create: () => Promise<V>): Promise<V> {
    const cached = this.get(key);
    if (cached !== undefined) {
      return cached;
    }
    let pending = this._pending.get(key);
    if (!pending) {
      pending = create().then(
        value => {
          this._pending.delete(key);
          this.set(key, value);
          return value;
        },
        (error: unknown) => {
          this._pending.delete(key);
          throw error;
        }
      );
      this._pending.set(key, pending);
    }
    return pending;
  }
}
