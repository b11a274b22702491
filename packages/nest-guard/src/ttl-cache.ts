/**
 * A small, bounded, per-key cache of promises: concurrent requests with one token share one
 * load, a failed load is not kept, and no entry is served after `ttlMs` from the moment its
 * load started (so anything revoked before a load began is seen by it).
 */
export class TtlCache<V> {
  private readonly entries = new Map<string, { expiresAt: number; value: Promise<V> }>();

  constructor(
    private readonly ttlMs: number,
    private readonly maxEntries: number,
    private readonly now: () => number = Date.now,
  ) {
    if (!Number.isFinite(ttlMs) || ttlMs < 0) throw new Error('AuthGuardModule: cacheTtlMs must be a number >= 0.');
    if (!Number.isInteger(maxEntries) || maxEntries < 1)
      throw new Error('AuthGuardModule: cacheMaxEntries must be an integer >= 1.');
  }

  get size(): number {
    return this.entries.size;
  }

  getOrLoad(key: string, load: () => Promise<V>): Promise<V> {
    if (this.ttlMs === 0) return load();
    const now = this.now();
    const hit = this.entries.get(key);
    if (hit && hit.expiresAt > now) return hit.value;
    this.entries.delete(key);
    const value = load();
    if (this.entries.size >= this.maxEntries) this.evict(now);
    this.entries.set(key, { expiresAt: now + this.ttlMs, value });
    value.catch(() => {
      if (this.entries.get(key)?.value === value) this.entries.delete(key);
    });
    return value;
  }

  /** Drops expired entries; when none had expired, the oldest one (Maps iterate in insertion order). */
  private evict(now: number): void {
    for (const [key, entry] of this.entries) {
      if (entry.expiresAt <= now) this.entries.delete(key);
    }
    if (this.entries.size >= this.maxEntries) this.entries.delete(this.entries.keys().next().value!);
  }
}
