import { Redis } from 'ioredis';

/**
 * The run's Redis server: `TEST_REDIS_URL`, which the global setup sets (the one given, or a
 * redis-server it started; see redis-server.mjs). Never `REDIS_URL` or a default: some tests empty
 * Redis databases. It is a requirement of the run: a test "with Redis" checks through its own
 * client that the service's keys really are in Redis, so it fails when Redis does not answer
 * instead of passing on the service's in-process fallback.
 */
export const TEST_REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://test-redis-url-is-not-set.invalid:6379';

/** The run's Redis server, database `index` (tests that FLUSHDB take an index of their own). */
export function testRedisUrl(index?: number): string {
  if (index === undefined) return TEST_REDIS_URL;
  const url = new URL(TEST_REDIS_URL);
  url.pathname = `/${index}`;
  return url.toString();
}

/**
 * A client of our own on `url`, to look at what the service stored. It fails a command rather
 * than waiting for a server that does not answer.
 */
export function redisClient(url = TEST_REDIS_URL): Redis {
  const client = new Redis(url, { maxRetriesPerRequest: 1, connectTimeout: 2000, lazyConnect: true });
  refuseFlushOutsideTestRedis(client, url);
  // Errors surface as the failed commands of the test; the event only stops ioredis printing them.
  client.on('error', () => undefined);
  return client;
}

/** Only the run's own Redis may be emptied: any other could hold someone's data. */
export function refuseFlushOutsideTestRedis(client: Redis, url: string): Redis {
  if (!isTestRedis(url)) {
    const refuse = (command: string) => () =>
      Promise.reject(new Error(`refusing ${command} on ${url}: not the run's TEST_REDIS_URL`)) as never;
    client.flushdb = refuse('FLUSHDB');
    client.flushall = refuse('FLUSHALL');
  }
  return client;
}

/** Whether `url` is a database of the run's own Redis server (same host and port as TEST_REDIS_URL). */
export function isTestRedis(url: string): boolean {
  if (!process.env.TEST_REDIS_URL) return false;
  const own = new URL(process.env.TEST_REDIS_URL);
  const other = new URL(url);
  return own.hostname === other.hostname && (own.port || '6379') === (other.port || '6379');
}

export interface RedisFixture {
  /** Our own client on the run's Redis (the database `index` asked for). */
  client: Redis;
  url: string;
}

/**
 * For a describe block that needs Redis: a client connected before the block's tests (failing the
 * block at once when Redis does not answer), optionally emptying its database first, and closed
 * after them.
 */
export function useRedis(options: { index?: number; flush?: boolean } = {}): RedisFixture {
  const fixture = { url: testRedisUrl(options.index) } as RedisFixture;
  beforeAll(async () => {
    fixture.client = redisClient(fixture.url);
    try {
      await fixture.client.connect();
      await fixture.client.ping();
    } catch (error) {
      throw new Error(`These tests need Redis at ${fixture.url} (TEST_REDIS_URL): ${(error as Error).message}`, {
        cause: error,
      });
    }
    if (options.flush) await fixture.client.flushdb();
  });
  afterAll(async () => {
    await fixture.client?.quit().catch(() => fixture.client.disconnect());
  });
  return fixture;
}
