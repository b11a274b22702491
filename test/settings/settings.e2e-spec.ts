import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import request from 'supertest';
import type { DataSource } from 'typeorm';
import type { TestDatabase } from '../support/databases.mjs';
import { useTestApp } from '../support/fixture.js';
import { call, callerWithPermissions, type Caller } from '../support/rbac-factory.js';
import { TEST_REDIS_URL, useRedis } from '../support/redis.js';
import { createTestApp } from '../support/test-app.js';

const SETUPS: [string, Record<string, string>][] = [
  ['without Redis (PostgreSQL read every time)', {}],
  ['with Redis (cached, shared version)', { REDIS_URL: TEST_REDIS_URL }],
];

const PATH = '/api/admin/settings';
/** The version counter of the settings in Redis, which every instance reads before its cached copy. */
const SETTINGS_VERSION_KEY = 'settings:v';

describe.each(SETUPS)('settings API on two instances %s', (_name, env) => {
  const redis = env.REDIS_URL ? useRedis() : undefined;
  // A database for each setup: the settings are global state its tests change. Test files share
  // Redis; a limiter there must not refuse this file's registrations.
  const fixture = useTestApp({ database: 'seeded', env: { ...env, RATE_LIMIT_PER_MINUTE: '10000' }, instances: 2 });
  let database: TestDatabase;
  let db: DataSource;
  let first: NestFastifyApplication;
  let second: NestFastifyApplication;
  let nobody: Caller;
  let viewer: Caller;
  let editor: Caller;

  beforeAll(async () => {
    ({ database, db } = fixture);
    [first, second] = fixture.apps;
    // Every caller signs in before any test switches a login method off.
    nobody = await callerWithPermissions(first, db, []);
    viewer = await callerWithPermissions(first, db, ['settings.view']);
    editor = await callerWithPermissions(first, db, ['settings.view', 'settings.edit']);
  });

  const put = (app: NestFastifyApplication, body: unknown, token = editor.token) => call(app, 'put', PATH, token, body);
  const get = async (app: NestFastifyApplication) => {
    const res = await call(app, 'get', PATH, viewer.token);
    expect(res.status).toBe(200);
    return res.body.data;
  };
  const stored = async () => {
    const rows: { key: string; value: unknown }[] = await db.query(`SELECT key, value FROM settings ORDER BY key`);
    return Object.fromEntries(rows.map((row) => [row.key, row.value]));
  };

  describe('GET /api/admin/settings', () => {
    it('refuses a request without a token (401 UNAUTHENTICATED)', async () => {
      const res = await call(first, 'get', PATH);
      expect(res.status).toBe(401);
      expect(res.body).toEqual({ success: false, error: { code: 'UNAUTHENTICATED', message: expect.any(String) } });
    });

    it('refuses a caller without settings.view (403 FORBIDDEN naming it)', async () => {
      const res = await call(first, 'get', PATH, nobody.token);
      expect(res.status).toBe(403);
      expect(res.body.error.code).toBe('FORBIDDEN');
      expect(res.body.error.message).toContain('settings.view');
    });

    it('answers both flags to a caller with settings.view, from rows in the database', async () => {
      const res = await call(second, 'get', PATH, viewer.token);
      expect(res.status).toBe(200);
      // The service's initial values (AUTH_EMAIL_PASSWORD=true, AUTH_MOBILE_OTP=false), stored on first read.
      expect(res.body).toEqual({ success: true, data: { email_password: true, mobile_otp: false, email_code: false } });
      expect(await stored()).toEqual({ email_password: true, mobile_otp: false, email_code: false });
    });
  });

  describe('PUT /api/admin/settings', () => {
    it('refuses a request without a token (401 UNAUTHENTICATED)', async () => {
      const res = await call(first, 'put', PATH, undefined, { mobile_otp: true });
      expect(res.status).toBe(401);
      expect(res.body.error.code).toBe('UNAUTHENTICATED');
    });

    it('refuses a caller with settings.view but not settings.edit (403 FORBIDDEN naming it), changing nothing', async () => {
      const before = await stored();
      const res = await put(first, { mobile_otp: !before.mobile_otp }, viewer.token);
      expect(res.status).toBe(403);
      expect(res.body.error.code).toBe('FORBIDDEN');
      expect(res.body.error.message).toContain('settings.edit');
      expect(await stored()).toEqual(before);
    });

    it('changes the flags for a caller with settings.edit, answers the new settings and persists them', async () => {
      const res = await put(first, { email_password: true, mobile_otp: true });
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ success: true, data: { email_password: true, mobile_otp: true, email_code: false } });
      expect(await stored()).toEqual({ email_password: true, mobile_otp: true, email_code: false });

      const back = await put(first, { mobile_otp: false });
      expect(back.body.data).toEqual({ email_password: true, mobile_otp: false, email_code: false });
      expect(await stored()).toEqual({ email_password: true, mobile_otp: false, email_code: false });
    });

    it('applies a change on one instance at once on the other, in both directions', async () => {
      await put(first, { email_password: true, mobile_otp: false });
      // Both instances have read (and, where they cache, cached) the current value.
      expect(await get(first)).toEqual({ email_password: true, mobile_otp: false, email_code: false });
      expect(await get(second)).toEqual({ email_password: true, mobile_otp: false, email_code: false });

      const version = Number(await redis?.client.get(SETTINGS_VERSION_KEY));
      expect((await put(first, { mobile_otp: true })).status).toBe(200);
      // With Redis, the change was published there, where the other instance reads it.
      if (redis) expect(Number(await redis.client.get(SETTINGS_VERSION_KEY))).toBeGreaterThan(version);
      expect(await get(second)).toEqual({ email_password: true, mobile_otp: true, email_code: false });

      expect((await put(second, { email_password: false })).status).toBe(200);
      expect(await get(first)).toEqual({ email_password: false, mobile_otp: true, email_code: false });

      expect((await put(first, { email_password: true, mobile_otp: false })).status).toBe(200);
      expect(await get(second)).toEqual({ email_password: true, mobile_otp: false, email_code: false });
      expect(await get(first)).toEqual({ email_password: true, mobile_otp: false, email_code: false });
    });

    it('changes only the flags the body names', async () => {
      await put(first, { email_password: true, mobile_otp: false });
      const res = await put(second, { mobile_otp: true });
      expect(res.body.data).toEqual({ email_password: true, mobile_otp: true, email_code: false });
      const other = await put(second, { email_password: false });
      expect(other.body.data).toEqual({ email_password: false, mobile_otp: true, email_code: false });
      await put(first, { email_password: true, mobile_otp: false });
    });

    it('treats an empty body as a no-op that answers the current settings', async () => {
      await put(first, { email_password: true, mobile_otp: true });
      const res = await put(second, {});
      expect(res.status).toBe(200);
      expect(res.body.data).toEqual({ email_password: true, mobile_otp: true, email_code: false });
      expect(await stored()).toEqual({ email_password: true, mobile_otp: true, email_code: false });
      await put(first, { mobile_otp: false });
    });

    it.each([
      ['an unknown field', { email_password: true, sms_login: true }, 'sms_login'],
      ['a string for a flag', { mobile_otp: 'true' }, 'mobile_otp'],
      ['a number for a flag', { email_password: 1 }, 'email_password'],
      ['null for a flag', { mobile_otp: null }, 'mobile_otp'],
      ['an object for a flag', { email_password: { value: true } }, 'email_password'],
    ])('refuses %s with 400 VALIDATION_FAILED, changing nothing', async (_case, body, field) => {
      const before = await stored();
      const res = await put(first, body);
      expect(res.status).toBe(400);
      expect(res.body.success).toBe(false);
      expect(res.body.error.code).toBe('VALIDATION_FAILED');
      expect(res.body.error.details).toEqual(expect.arrayContaining([expect.objectContaining({ field })]));
      expect(await stored()).toEqual(before);
    });

    it('refuses a body that is not a JSON object', async () => {
      const res = await request(first.getHttpServer())
        .put(PATH)
        .set('authorization', `Bearer ${editor.token}`)
        .set('content-type', 'application/json')
        .send('[true]');
      expect(res.status).toBe(400);
      expect(res.body.error.code).toBe('VALIDATION_FAILED');
    });
  });

  it('keeps stored values over an instance configured with other initial values', async () => {
    await put(first, { email_password: true, mobile_otp: false });
    const other = await createTestApp({
      env: { ...env, DATABASE_URL: database.url, AUTH_EMAIL_PASSWORD: 'false', AUTH_MOBILE_OTP: 'true' },
    });
    try {
      expect(await get(other)).toEqual({ email_password: true, mobile_otp: false, email_code: false });
    } finally {
      await other.close();
    }
  });
});
