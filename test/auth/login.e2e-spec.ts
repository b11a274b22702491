import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import {
  login,
  me,
  registerUser,
  setCookies,
  TEST_PASSWORD,
  uniqueEmail,
  uniqueMobile,
} from '../support/auth-factory.js';
import { useTestApp } from '../support/fixture.js';

describe('POST /api/auth/login', () => {
  let app: NestFastifyApplication;

  const fixture = useTestApp();
  beforeAll(() => void ({ app } = fixture));

  const INVALID_CREDENTIALS = {
    success: false,
    error: { code: 'INVALID_CREDENTIALS', message: expect.any(String) },
  };

  it('signs in by email and password: 200 TokenPair, cookies, no-store', async () => {
    const user = await registerUser(app, { name: 'Grace Hopper' });
    const res = await login(app, { email: user.email, password: user.password });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      success: true,
      data: {
        access_token: expect.any(String),
        refresh_token: expect.any(String),
        token_type: 'Bearer',
        expires_in: 900,
        user: { id: user.id, name: 'Grace Hopper', email: user.email, mobile: null },
      },
    });
    expect(res.headers['cache-control']).toBe('no-store');
    const cookies = setCookies(res);
    expect(cookies.access_token?.value).toBe(res.body.data.access_token);
    expect(cookies.refresh_token?.value).toBe(res.body.data.refresh_token);
    expect((await me(app, res.body.data.access_token)).body.data.id).toBe(user.id);
  });

  it('starts a new session per login: two logins, two working token pairs with different sessions', async () => {
    const user = await registerUser(app);
    const first = await login(app, { email: user.email, password: user.password });
    const second = await login(app, { email: user.email, password: user.password });
    expect(first.body.data.access_token).not.toBe(second.body.data.access_token);
    expect((await me(app, first.body.data.access_token)).status).toBe(200);
    expect((await me(app, second.body.data.access_token)).status).toBe(200);
  });

  it('finds the account whatever the case and spacing of the email', async () => {
    const user = await registerUser(app);
    const res = await login(app, { email: `  ${user.email.toUpperCase()} `, password: user.password });
    expect(res.status).toBe(200);
    expect(res.body.data.user.id).toBe(user.id);
  });

  it('signs in by mobile and password, the mobile written with spaces and dashes', async () => {
    const mobile = uniqueMobile();
    const user = await registerUser(app, { mobile });
    const typed = `${mobile.slice(0, 3)} ${mobile.slice(3, 6)}-${mobile.slice(6, 10)}-${mobile.slice(10)}`;
    const res = await login(app, { mobile: typed, password: user.password });
    expect(res.status).toBe(200);
    expect(res.body.data.user).toEqual({ id: user.id, name: user.name, email: user.email, mobile });
    expect((await me(app, res.body.data.access_token)).body.data.id).toBe(user.id);
  });

  it('answers a wrong password and an unknown email with the identical 401 body', async () => {
    const user = await registerUser(app);
    const wrong = await login(app, { email: user.email, password: `${user.password}-wrong` });
    const unknown = await login(app, { email: uniqueEmail('nobody'), password: user.password });
    expect(wrong.status).toBe(401);
    expect(unknown.status).toBe(401);
    expect(wrong.body).toEqual(INVALID_CREDENTIALS);
    expect(unknown.body).toEqual(wrong.body);
    expect(wrong.headers['set-cookie']).toBeUndefined();
  });

  it('answers a wrong password and an unknown mobile with the same 401 body as for emails', async () => {
    const mobile = uniqueMobile();
    const user = await registerUser(app, { mobile });
    const wrong = await login(app, { mobile, password: `${user.password}-wrong` });
    const unknown = await login(app, { mobile: uniqueMobile(), password: user.password });
    const byEmail = await login(app, { email: user.email, password: `${user.password}-wrong` });
    expect(wrong.status).toBe(401);
    expect(unknown.status).toBe(401);
    expect(wrong.body).toEqual(INVALID_CREDENTIALS);
    expect(unknown.body).toEqual(wrong.body);
    expect(byEmail.body).toEqual(wrong.body);
  });

  it("does not accept another user's password", async () => {
    const alice = await registerUser(app);
    const bob = await registerUser(app, {
      password: 'Bob-Different-Pass-7',
      password_confirmation: 'Bob-Different-Pass-7',
    });
    const res = await login(app, { email: alice.email, password: bob.password });
    expect(res.status).toBe(401);
    expect(res.body.error.code).toBe('INVALID_CREDENTIALS');
  });

  it('refuses email and mobile together with 400 VALIDATION_FAILED', async () => {
    const mobile = uniqueMobile();
    const user = await registerUser(app, { mobile });
    const res = await login(app, { email: user.email, mobile, password: user.password });
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('VALIDATION_FAILED');
    expect(res.body.error.details.length).toBeGreaterThan(0);
    expect(res.headers['set-cookie']).toBeUndefined();
  });

  it('refuses a body with neither email nor mobile with 400 VALIDATION_FAILED', async () => {
    const res = await login(app, { password: TEST_PASSWORD });
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('VALIDATION_FAILED');
    expect(res.body.error.details.length).toBeGreaterThan(0);
  });

  it.each([
    ['a missing password', (email: string) => ({ email })],
    ['a malformed email', () => ({ email: 'not-an-email', password: TEST_PASSWORD })],
    ['a 7-character mobile', () => ({ mobile: '1234567', password: TEST_PASSWORD })],
    ['a 16-character mobile', () => ({ mobile: '1234567890123456', password: TEST_PASSWORD })],
    ['a number as password', (email: string) => ({ email, password: 12345678 })],
    ['null as email', () => ({ email: null, password: TEST_PASSWORD })],
    ['an unknown field', (email: string) => ({ email, password: TEST_PASSWORD, remember_me: true })],
  ])('refuses %s with 400 VALIDATION_FAILED', async (_label, body) => {
    const res = await login(app, body(uniqueEmail()));
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('VALIDATION_FAILED');
  });
});

describe('POST /api/auth/login with AUTH_EMAIL_PASSWORD=false', () => {
  // The flag is a setting the first app on a database stores: a database of its own, so the
  // file's other tests keep email logins.
  let app: NestFastifyApplication;
  const fixture = useTestApp({ database: 'seeded', env: { AUTH_EMAIL_PASSWORD: 'false', DB_POOL_SIZE: '3' } });
  beforeAll(() => void ({ app } = fixture));

  it('refuses an email and password login with 403 LOGIN_METHOD_DISABLED, even with the right password', async () => {
    const user = await registerUser(app);
    const res = await login(app, { email: user.email, password: user.password });
    expect(res.status).toBe(403);
    expect(res.body).toEqual({ success: false, error: { code: 'LOGIN_METHOD_DISABLED', message: expect.any(String) } });
    expect(res.headers['set-cookie']).toBeUndefined();
  });

  it('refuses a mobile and password login with 403 LOGIN_METHOD_DISABLED', async () => {
    const mobile = uniqueMobile();
    const user = await registerUser(app, { mobile });
    const res = await login(app, { mobile, password: user.password });
    expect(res.status).toBe(403);
    expect(res.body.error.code).toBe('LOGIN_METHOD_DISABLED');
  });

  it('answers an unknown account the same way, revealing nothing', async () => {
    const res = await login(app, { email: uniqueEmail('nobody'), password: TEST_PASSWORD });
    expect(res.status).toBe(403);
    expect(res.body.error.code).toBe('LOGIN_METHOD_DISABLED');
  });
});
