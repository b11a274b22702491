import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import type { DataSource } from 'typeorm';
import { SettingsRepository } from '../../src/settings/settings.repository.js';
import { SettingsService } from '../../src/settings/settings.service.js';
import {
  DisabledVersionCounters,
  InProcessVersionCounters,
  RedisVersionCounters,
} from '../../src/infra/redis/version-counters.js';
import { SettingsVersion } from '../../src/settings/settings-version.js';
import { useTestDatabase } from '../support/fixture.js';
import { refuseFlushOutsideTestRedis, TEST_REDIS_URL, testRedisUrl } from '../support/redis.js';
import { createTestConfig } from '../support/test-config.js';

/**
 * SettingsService against a real database in each of its three modes. The HTTP tests prove that
 * changes are seen everywhere; these also prove that the cache is used where it is safe, since a
 * direct SQL edit (which publishes nothing) stays unseen exactly while the cache is trusted.
 */
describe('SettingsService', () => {
  const data = useTestDatabase();
  let db: DataSource;
  const clients: Redis[] = [];
  beforeAll(() => void ({ db } = data));

  afterAll(async () => {
    await Promise.all(clients.map((client) => client.quit().catch(() => client.disconnect())));
  });

  // Each test starts from a database whose settings were never read.
  beforeEach(async () => {
    await db.query(`DELETE FROM settings`);
  });

  const serviceWith = (version: SettingsVersion, env: Record<string, string> = {}) =>
    new SettingsService(new SettingsRepository(db), createTestConfig(env), version);
  const editBySql = (key: string, value: boolean) =>
    db.query(`UPDATE settings SET value = $2::jsonb WHERE key = $1`, [key, JSON.stringify(value)]);
  /** Resolves once the client is connected, and fails the test when Redis does not answer. */
  const untilReady = (client: Redis) =>
    new Promise((resolve, reject) => {
      client.once('ready', resolve);
      client.once('error', (error: Error) => reject(new Error(`Redis does not answer: ${error.message}`)));
    });
  const redisClient = (url = TEST_REDIS_URL) => {
    const client = refuseFlushOutsideTestRedis(
      new Redis(url, { enableOfflineQueue: false, maxRetriesPerRequest: 1, connectTimeout: 1000 }),
      url,
    );
    client.on('error', () => undefined);
    clients.push(client);
    return client;
  };

  describe('initial values', () => {
    it('come from the configuration on first read and are stored once', async () => {
      const service = serviceWith(new SettingsVersion(new DisabledVersionCounters()), {
        AUTH_EMAIL_PASSWORD: 'false',
        AUTH_MOBILE_OTP: 'true',
      });
      expect(await service.getLoginMethods()).toEqual({ emailPassword: false, mobileOtp: true, emailCode: false });
      const rows = await db.query(`SELECT key, value FROM settings ORDER BY key`);
      expect(rows).toEqual([
        { key: 'email_code', value: false },
        { key: 'email_password', value: false },
        { key: 'mobile_otp', value: true },
      ]);

      // An instance configured otherwise reads what is stored: the configuration is only the start.
      const other = serviceWith(new SettingsVersion(new DisabledVersionCounters()), {
        AUTH_EMAIL_PASSWORD: 'true',
        AUTH_MOBILE_OTP: 'false',
      });
      expect(await other.getLoginMethods()).toEqual({ emailPassword: false, mobileOtp: true, emailCode: false });
    });

    it('default to email_password on and mobile_otp off', async () => {
      expect(await serviceWith(new SettingsVersion(new DisabledVersionCounters())).getLoginMethods()).toEqual({
        emailPassword: true,
        mobileOtp: false,
        emailCode: false,
      });
    });

    it('are agreed on by concurrent first readers', async () => {
      const readers = Array.from({ length: 6 }, () => serviceWith(new SettingsVersion(new DisabledVersionCounters())));
      const results = await Promise.all(readers.map((reader) => reader.getLoginMethods()));
      for (const result of results) expect(result).toEqual({ emailPassword: true, mobileOtp: false, emailCode: false });
      expect((await db.query(`SELECT count(*)::int AS n FROM settings`))[0].n).toBe(3);
    });

    it('fill in a row that is missing without touching the other', async () => {
      const service = serviceWith(new SettingsVersion(new DisabledVersionCounters()));
      await service.update({ mobileOtp: true });
      expect(await service.getLoginMethods()).toEqual({ emailPassword: true, mobileOtp: true, emailCode: false });
    });
  });

  it('falls back to the configured value for a row edited by hand to something not boolean', async () => {
    const service = serviceWith(new SettingsVersion(new DisabledVersionCounters()), { AUTH_MOBILE_OTP: 'true' });
    await service.getLoginMethods();
    await db.query(`UPDATE settings SET value = '"yes"'::jsonb WHERE key = 'mobile_otp'`);
    expect(await service.getLoginMethods()).toEqual({ emailPassword: true, mobileOtp: true, emailCode: false });
  });

  it('answers a frozen value, so no caller can change the cached one', async () => {
    const value = await serviceWith(new SettingsVersion(new InProcessVersionCounters())).getLoginMethods();
    expect(Object.isFrozen(value)).toBe(true);
  });

  describe('on a PostgreSQL server without Redis (no shared version)', () => {
    it('reads PostgreSQL every time, so any change is seen at once', async () => {
      const service = serviceWith(new SettingsVersion(new DisabledVersionCounters()));
      expect(await service.getLoginMethods()).toEqual({ emailPassword: true, mobileOtp: false, emailCode: false });
      await editBySql('mobile_otp', true);
      expect(await service.getLoginMethods()).toEqual({ emailPassword: true, mobileOtp: true, emailCode: false });
    });
  });

  describe('on the embedded database (in-process version)', () => {
    it('serves the cached value, and its own changes at once', async () => {
      const service = serviceWith(new SettingsVersion(new InProcessVersionCounters()));
      expect(await service.getLoginMethods()).toEqual({ emailPassword: true, mobileOtp: false, emailCode: false });
      // Nothing but this process writes the embedded database; a direct edit proves the cache is used.
      await editBySql('mobile_otp', true);
      expect(await service.getLoginMethods()).toEqual({ emailPassword: true, mobileOtp: false, emailCode: false });

      expect(await service.update({ emailPassword: false })).toEqual({
        emailPassword: false,
        mobileOtp: true,
        emailCode: false,
      });
      expect(await service.getLoginMethods()).toEqual({ emailPassword: false, mobileOtp: true, emailCode: false });
    });

    it('treats an update with nothing in it as a read', async () => {
      const service = serviceWith(new SettingsVersion(new InProcessVersionCounters()));
      await service.update({ mobileOtp: true });
      expect(await service.update({})).toEqual({ emailPassword: true, mobileOtp: true, emailCode: false });
      expect(await service.update({ emailPassword: undefined })).toEqual({
        emailPassword: true,
        mobileOtp: true,
        emailCode: false,
      });
    });
  });

  describe('with Redis (shared version)', () => {
    // A key of this test's own, so other test files bumping the real key cannot interfere.
    const versionOn = (client: Redis, key: string) => new SettingsVersion(new RedisVersionCounters(client), key);

    /** Without an offline queue, commands sent before the connection is ready fail (and fall back). */
    const connectedClient = async () => {
      const client = redisClient();
      if (client.status !== 'ready') await untilReady(client);
      return client;
    };

    it('caches until another instance publishes a change, then reloads at once', async () => {
      const key = `test:settings:v:${randomUUID()}`;
      const [clientA, clientB] = [await connectedClient(), await connectedClient()];
      const [a, b] = [serviceWith(versionOn(clientA, key)), serviceWith(versionOn(clientB, key))];
      expect(await a.getLoginMethods()).toEqual({ emailPassword: true, mobileOtp: false, emailCode: false });
      expect(await b.getLoginMethods()).toEqual({ emailPassword: true, mobileOtp: false, emailCode: false });

      await editBySql('email_password', false);
      expect(await b.getLoginMethods()).toEqual({ emailPassword: true, mobileOtp: false, emailCode: false });

      expect(await a.update({ mobileOtp: true })).toEqual({ emailPassword: false, mobileOtp: true, emailCode: false });
      expect(await b.getLoginMethods()).toEqual({ emailPassword: false, mobileOtp: true, emailCode: false });
      expect(await a.getLoginMethods()).toEqual({ emailPassword: false, mobileOtp: true, emailCode: false });
      expect(await clientA.get(key)).toBe('1');
      await clientA.del(key);
    });

    it('reloads after Redis loses its data, even when the version then reads as it did before', async () => {
      // A Redis database of this test's own, so its FLUSHDB touches nobody else's keys.
      const client = redisClient(testRedisUrl(8));

      if (client.status !== 'ready') await untilReady(client);
      await client.flushdb();
      const key = `test:settings:v:${randomUUID()}`;
      const [a, b] = [serviceWith(versionOn(client, key)), serviceWith(versionOn(client, key))];
      await a.update({ mobileOtp: true });
      expect(await b.getLoginMethods()).toEqual({ emailPassword: true, mobileOtp: true, emailCode: false });
      expect(await client.get(key)).toBe('1');

      await client.flushdb();
      // Published after the flush: the counter is 1 again, as when b cached its value.
      await a.update({ mobileOtp: false });
      expect(await client.get(key)).toBe('1');
      expect(await b.getLoginMethods()).toEqual({ emailPassword: true, mobileOtp: false, emailCode: false });
      await client.flushdb();
    });

    it('falls back to PostgreSQL on every read while Redis cannot be reached', async () => {
      // Port 1: connections are refused, and without an offline queue every command fails at once.
      const service = serviceWith(versionOn(redisClient('redis://127.0.0.1:1'), `test:settings:v:${randomUUID()}`));
      expect(await service.getLoginMethods()).toEqual({ emailPassword: true, mobileOtp: false, emailCode: false });
      await editBySql('mobile_otp', true);
      expect(await service.getLoginMethods()).toEqual({ emailPassword: true, mobileOtp: true, emailCode: false });
      // A change still commits; only its publication fails (and is logged).
      expect(await service.update({ emailPassword: false })).toEqual({
        emailPassword: false,
        mobileOtp: true,
        emailCode: false,
      });
      expect(await service.getLoginMethods()).toEqual({ emailPassword: false, mobileOtp: true, emailCode: false });
    });
  });
});
