import { LocalRateLimitStorage } from './rate-limit-storage.js';

/** A counter within its limit: nothing blocks it, so there is no block to wait out. */
const within = (counter: { totalHits: number; timeToExpire: number }) => ({
  ...counter,
  isBlocked: false,
  timeToBlockExpire: 0,
});

/** A counter past its limit, refused until `timeToBlockExpire` seconds have passed. */
const blocked = (counter: { totalHits: number; timeToExpire: number; timeToBlockExpire: number }) => ({
  ...counter,
  isBlocked: true,
});

describe('the in-process rate-limit counters', () => {
  let now = 1_000_000;
  let storage: LocalRateLimitStorage;
  beforeEach(() => {
    now = 1_000_000;
    storage = new LocalRateLimitStorage(() => now);
  });
  afterEach(() => storage.close());

  it('counts hits in a fixed window and lets the limit itself through', async () => {
    for (let hit = 1; hit <= 3; hit += 1) {
      expect(await storage.increment('k', 60_000, 3, 60_000)).toEqual(within({ totalHits: hit, timeToExpire: 60 }));
    }
  });

  it('blocks the hit past the limit for the block duration, then starts a new window', async () => {
    for (let hit = 0; hit < 2; hit += 1) await storage.increment('k', 60_000, 2, 30_000);
    now += 10_000;
    expect(await storage.increment('k', 60_000, 2, 30_000)).toMatchObject({ isBlocked: true, timeToBlockExpire: 30 });
    now += 29_000;
    expect(await storage.increment('k', 60_000, 2, 30_000)).toEqual(
      blocked({ totalHits: 3, timeToExpire: 1, timeToBlockExpire: 1 }),
    );
    now += 1_000;
    expect(await storage.increment('k', 60_000, 2, 30_000)).toEqual(within({ totalHits: 1, timeToExpire: 60 }));
  });

  it('starts afresh when the window is over', async () => {
    for (let hit = 0; hit < 5; hit += 1) await storage.increment('k', 60_000, 10, 60_000);
    now += 60_000;
    expect(await storage.increment('k', 60_000, 10, 60_000)).toMatchObject({ totalHits: 1, timeToExpire: 60 });
  });

  it('keeps keys apart', async () => {
    await storage.increment('a', 60_000, 1, 60_000);
    expect(await storage.increment('a', 60_000, 1, 60_000)).toMatchObject({ isBlocked: true });
    expect(await storage.increment('b', 60_000, 1, 60_000)).toMatchObject({ isBlocked: false, totalHits: 1 });
  });

  it('without a block duration refuses until the window ends', async () => {
    await storage.increment('k', 60_000, 1, 0);
    now += 20_000;
    expect(await storage.increment('k', 60_000, 1, 0)).toEqual(
      blocked({ totalHits: 2, timeToExpire: 40, timeToBlockExpire: 40 }),
    );
    now += 40_000;
    expect(await storage.increment('k', 60_000, 1, 0)).toMatchObject({ totalHits: 1, isBlocked: false });
  });

  it('holds one counter per key however many hits, and sweeps those whose window and block are over', async () => {
    for (let hit = 0; hit < 10_000; hit += 1) await storage.increment('busy', 60_000, 1_000_000, 60_000);
    await storage.increment('blocked', 60_000, 0, 120_000);
    expect(storage.size).toBe(2);
    now += 60_000;
    storage.sweep();
    expect(storage.size).toBe(1);
    now += 60_000;
    storage.sweep();
    expect(storage.size).toBe(0);
  });
});
