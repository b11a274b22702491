import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import request from 'supertest';
import type { DataSource } from 'typeorm';
import {
  me,
  registerUser,
  registrationBody,
  setCookies,
  TEST_PASSWORD,
  uniqueEmail,
  uniqueMobile,
} from '../support/auth-factory.js';
import { useTestApp } from '../support/fixture.js';

describe('POST /api/auth/register', () => {
  let app: NestFastifyApplication;
  let db: DataSource;

  const fixture = useTestApp();
  beforeAll(() => void ({ app, db } = fixture));

  const register = (body: unknown) =>
    request(app.getHttpServer())
      .post('/api/auth/register')
      .send(body as object);

  async function storedUser(
    email: string,
  ): Promise<{ id: string; email: string; mobile: string | null; password_hash: string } | undefined> {
    const [row] = await db.query(`SELECT id, email, mobile, password_hash FROM users WHERE email = $1`, [email]);
    return row;
  }

  function expectValidationFailure(res: request.Response, field?: string): void {
    expect(res.status).toBe(400);
    expect(res.body.success).toBe(false);
    expect(res.body.error.code).toBe('VALIDATION_FAILED');
    expect(res.body.error.details).toEqual(
      expect.arrayContaining([{ field: expect.any(String), message: expect.any(String) }]),
    );
    if (field) expect(res.body.error.details.map((detail: { field: string }) => detail.field)).toContain(field);
  }

  it('answers 201 with a token pair, cookies and Cache-Control: no-store', async () => {
    const body = registrationBody({ name: 'Ada Lovelace' });
    const res = await register(body);
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      success: true,
      data: {
        access_token: expect.any(String),
        refresh_token: expect.any(String),
        token_type: 'Bearer',
        expires_in: 900,
        user: { id: expect.stringMatching(/^[0-9a-f-]{36}$/), name: 'Ada Lovelace', email: body.email, mobile: null },
      },
    });
    expect(res.headers['cache-control']).toBe('no-store');
    const cookies = setCookies(res);
    expect(cookies.access_token?.value).toBe(res.body.data.access_token);
    expect(cookies.refresh_token?.value).toBe(res.body.data.refresh_token);
  });

  it('gives the new user the role "user" and no permissions', async () => {
    const user = await registerUser(app);
    const res = await me(app, user.tokens.access_token);
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual({
      id: user.id,
      name: user.name,
      email: user.email,
      mobile: null,
      email_verified: false,
      roles: ['user'],
      permissions: [],
    });
  });

  it('stores the email trimmed and lower-cased', async () => {
    const email = uniqueEmail('MiXeD');
    const res = await register(registrationBody({ email: `  ${email.toUpperCase()}  ` }));
    expect(res.status).toBe(201);
    expect(res.body.data.user.email).toBe(email.toLowerCase());
    expect((await storedUser(email.toLowerCase()))?.email).toBe(email.toLowerCase());
  });

  it('stores the mobile in its normalised form', async () => {
    const mobile = uniqueMobile();
    const typed = `${mobile.slice(0, 3)} (${mobile.slice(3, 6)}) ${mobile.slice(6, 9)}-${mobile.slice(9)}`;
    const res = await register(registrationBody({ mobile: typed }));
    expect(res.status).toBe(201);
    expect(res.body.data.user.mobile).toBe(mobile);
    expect((await storedUser(res.body.data.user.email))?.mobile).toBe(mobile);
  });

  it.each([
    ['the same address', (email: string) => email],
    ['other case', (email: string) => email.toUpperCase()],
    ['surrounding spaces', (email: string) => `  ${email}\t`],
  ])('refuses a taken email written with %s: 409 CONFLICT', async (_label, variant) => {
    const user = await registerUser(app);
    const res = await register(registrationBody({ email: variant(user.email) }));
    expect(res.status).toBe(409);
    expect(res.body).toEqual({
      success: false,
      error: {
        code: 'CONFLICT',
        message: expect.any(String),
        details: [{ field: 'email', message: expect.any(String) }],
      },
    });
  });

  it('names the email as the taken field even when the address contains "mobile"', async () => {
    const user = await registerUser(app, { email: uniqueEmail('mobile') });
    const res = await register(registrationBody({ email: user.email }));
    expect(res.status).toBe(409);
    expect(res.body.error.details).toEqual([{ field: 'email', message: expect.any(String) }]);
  });

  it('refuses a taken mobile, also written differently: 409 CONFLICT', async () => {
    const mobile = uniqueMobile();
    await registerUser(app, { mobile });
    const res = await register(
      registrationBody({ mobile: `${mobile.slice(0, 5)} ${mobile.slice(5, 9)}-${mobile.slice(9)}` }),
    );
    expect(res.status).toBe(409);
    expect(res.body.error.code).toBe('CONFLICT');
    expect(res.body.error.details).toEqual([{ field: 'mobile', message: expect.any(String) }]);
  });

  it('refuses a mismatched password_confirmation with 400 VALIDATION_FAILED and details', async () => {
    const body = registrationBody({ password_confirmation: `${TEST_PASSWORD}-other` });
    const res = await register(body);
    expectValidationFailure(res, 'password_confirmation');
    expect(await storedUser(String(body.email))).toBeUndefined();
  });

  it.each([
    ['7 characters', 'aB3$xY7'],
    ['129 characters', `Zq9!${'k'.repeat(125)}`],
  ])('refuses a password of %s', async (_label, password) => {
    const res = await register(registrationBody({ password, password_confirmation: password }));
    expectValidationFailure(res, 'password');
  });

  it('accepts passwords of exactly 8 and 128 characters', async () => {
    for (const password of ['Vq8#mZ2p', `Zq9!${'k'.repeat(124)}`]) {
      const res = await register(registrationBody({ password, password_confirmation: password }));
      expect(res.status).toBe(201);
    }
  });

  it.each(['password123', 'qwertyuiop', 'PASSWORD123'])('refuses the common password %s', async (password) => {
    const res = await register(registrationBody({ password, password_confirmation: password }));
    expectValidationFailure(res, 'password');
  });

  it('refuses an unknown field, naming it', async () => {
    const res = await register(registrationBody({ role: 'admin' }));
    expectValidationFailure(res, 'role');
  });

  it.each([
    ['a number', 42],
    ['an array', ['x@example.com']],
    ['an object', { address: 'x@example.com' }],
    ['null', null],
  ])('refuses %s where a string is expected', async (_label, value) => {
    for (const field of ['name', 'email', 'password', 'password_confirmation', 'mobile']) {
      const res = await register(registrationBody({ [field]: value }));
      expectValidationFailure(res, field);
    }
  });

  it.each(['not-an-email', '', 'a@', '@example.com'])('refuses the malformed email %j', async (email) => {
    expectValidationFailure(await register(registrationBody({ email })), 'email');
  });

  it('refuses missing fields, naming each', async () => {
    const res = await register({});
    expectValidationFailure(res);
    const fields = new Set(res.body.error.details.map((detail: { field: string }) => detail.field));
    for (const field of ['name', 'email', 'password', 'password_confirmation']) expect(fields).toContain(field);
  });

  it.each([
    ['7 characters', '1234567'],
    ['16 characters', '1234567890123456'],
    ['letters', '+44 79 ABC 12345'],
  ])('refuses a mobile of %s', async (_label, mobile) => {
    expectValidationFailure(await register(registrationBody({ mobile })), 'mobile');
  });

  it('accepts numbers without a country prefix of 8 and 15 digits, and a number in E.164', async () => {
    // Without DEFAULT_PHONE_REGION, a number without +CC or 00CC is kept as its digits. The
    // 8-digit number starts with 7: random digits starting 00 would be read as an international prefix.
    for (const mobile of [`7${uniqueMobile().slice(-7)}`, `9${uniqueMobile().slice(1)}0`, uniqueMobile()]) {
      expect(mobile.replace('+', '').length).toBeGreaterThanOrEqual(8);
      expect(mobile.replace('+', '').length).toBeLessThanOrEqual(15);
      const res = await register(registrationBody({ mobile }));
      expect(res.status).toBe(201);
      expect(res.body.data.user.mobile).toBe(mobile);
    }
  });

  it('stores the password as an Argon2id PHC string (test cost) and never returns it', async () => {
    const body = registrationBody();
    const res = await register(body);
    expect(res.status).toBe(201);
    const row = await storedUser(String(body.email));
    expect(row?.password_hash).toMatch(/^\$argon2id\$v=19\$m=1024,t=1,p=1\$[A-Za-z0-9+/]+\$[A-Za-z0-9+/]+$/);
    expect(row?.password_hash).not.toContain(TEST_PASSWORD);
    const profile = await me(app, res.body.data.access_token);
    for (const text of [JSON.stringify(res.body), JSON.stringify(profile.body)]) {
      expect(text).not.toContain(TEST_PASSWORD);
      expect(text).not.toContain(row!.password_hash);
      expect(text).not.toContain('$argon2');
      expect(text).not.toMatch(/password/i);
    }
  });

  it('salts every hash: one password, two users, two different hashes', async () => {
    const first = await registerUser(app);
    const second = await registerUser(app);
    const [a, b] = await Promise.all([storedUser(first.email), storedUser(second.email)]);
    expect(a!.password_hash).not.toBe(b!.password_hash);
  });
});

describe('password hashing with the default configuration', () => {
  const fixture = useTestApp({
    env: {
      ARGON2_MEMORY_KIB: undefined,
      ARGON2_ITERATIONS: undefined,
      ARGON2_PARALLELISM: undefined,
      DB_POOL_SIZE: '2',
    },
  });

  it('stores $argon2id$v=19$m=19456,t=2,p=1$ hashes when no ARGON2_* variable is set', async () => {
    const { app, db } = fixture;
    const user = await registerUser(app);
    const [row] = await db.query(`SELECT password_hash FROM users WHERE id = $1`, [user.id]);
    expect(row.password_hash.startsWith('$argon2id$v=19$m=19456,t=2,p=1$')).toBe(true);
    // And the default-cost hash verifies at login.
    const res = await request(app.getHttpServer())
      .post('/api/auth/login')
      .send({ email: user.email, password: user.password });
    expect(res.status).toBe(200);
  });
});
