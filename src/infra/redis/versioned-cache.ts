import { LRUCache } from 'lru-cache';

interface Entry<V> {
  value: V;
  version: string;
}

export interface VersionedCacheOptions {
  /** Entries kept; the least recently used goes first. */
  maxEntries: number;
  /**
   * The longest an entry is trusted, whatever its version: bounds how long a value can outlive a
   * change whose publication failed (a bump that could not reach Redis).
   */
  maxAgeMs: number;
}

/**
 * Values cached in process, each trusted only while the version it was loaded under (read from
 * VersionCounters before loading) is still the current one. Every cache of the service that a
 * change must invalidate at once, on every instance, is one of these.
 */
export class VersionedCache<V extends object> {
  private readonly entries: LRUCache<string, Entry<V>>;

  constructor(private readonly options: VersionedCacheOptions) {
    this.entries = new LRUCache<string, Entry<V>>({ max: options.maxEntries, ttl: options.maxAgeMs });
  }

  /** The cached value when it was loaded under `version`; a null version (unreadable) trusts nothing. */
  get(key: string, version: string | null): V | undefined {
    if (version === null) return undefined;
    const entry = this.entries.get(key);
    return entry?.version === version ? entry.value : undefined;
  }

  /**
   * The entry's value whatever its version, for a caller that already holds a value it got from
   * `get` and wants what was stored beside it (compare identities before trusting it).
   */
  peek(key: string): V | undefined {
    return this.entries.peek(key)?.value;
  }

  /**
   * Keeps `value` as loaded under `version` (read before the load, so a change that landed in
   * between leaves it stale), for at most `ttlMs` when the value itself ends sooner than the
   * cache's age limit (a session's absolute end).
   */
  set(key: string, version: string | null, value: V, ttlMs?: number): void {
    const ttl = Math.min(ttlMs ?? this.options.maxAgeMs, this.options.maxAgeMs);
    if (version === null || ttl <= 0) {
      this.entries.delete(key);
      return;
    }
    this.entries.set(key, { value, version }, { ttl });
  }

  delete(key: string): void {
    this.entries.delete(key);
  }
}
