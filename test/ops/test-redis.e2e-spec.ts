import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { redisClient, TEST_REDIS_URL } from '../support/redis.js';

const ROOT = path.resolve(import.meta.dirname, '../..');

/**
 * The suite's Redis is its own: TEST_REDIS_URL (or a redis-server the run started), never the
 * REDIS_URL a developer points at their own Redis, and nothing else may be emptied.
 */
describe('the Redis the tests use', () => {
  it("is the run's TEST_REDIS_URL, and it answers", async () => {
    expect(process.env.TEST_REDIS_URL).toBe(TEST_REDIS_URL);
    const client = redisClient();
    try {
      await client.connect();
      expect(await client.ping()).toBe('PONG');
    } finally {
      client.disconnect();
    }
  });

  it('refuses FLUSHDB and FLUSHALL on any other Redis, before a command is sent', async () => {
    for (const url of ['redis://127.0.0.1:6379/7', 'redis://127.0.0.1:1/9']) {
      if (url.startsWith(TEST_REDIS_URL.replace(/\/\d*$/, '') + '/')) continue;
      const client = redisClient(url);
      await expect(client.flushdb()).rejects.toThrow(`refusing FLUSHDB on ${url}: not the run's TEST_REDIS_URL`);
      await expect(client.flushall()).rejects.toThrow('refusing FLUSHALL');
      client.disconnect();
    }
  });

  it('without TEST_REDIS_URL and without redis-server, the run stops with a message saying what to set', () => {
    const result = spawnSync(
      process.execPath,
      [
        '--input-type=module',
        '-e',
        `import { startTestRedis } from './test/support/redis-server.mjs';
         await startTestRedis().then(() => console.log('started'), (error) => console.log(error.message));`,
      ],
      { cwd: ROOT, env: { PATH: '/nonexistent', REDIS_URL: 'redis://127.0.0.1:6379' }, encoding: 'utf8' },
    );
    expect(result.stdout).toContain('The tests need a Redis of their own');
    expect(result.stdout).toContain('set TEST_REDIS_URL=redis://HOST:PORT');
    expect(result.stdout).not.toContain('started');
  });
});
