import { randomUUID } from 'node:crypto';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { SignJWT, decodeProtectedHeader } from 'jose';
import { TOTP, URI } from 'otpauth';
import request from 'supertest';
import type { DataSource } from 'typeorm';
import { decodeJwt, login, registerUser, sleep, uniqueEmail, uniqueMobile } from '../support/auth-factory.js';
import type { SmsReceiver } from '../support/sms-receiver.js';
import { SMS_LOGINS, useTestApp } from '../support/fixture.js';
import { TEST_JWT_SECRET } from '../support/test-config.js';

/**
 * An attacker holding nothing but a victim's access token (15 minutes, from an XSS or a shared
 * machine) must not turn it into lasting control of the account: every action that changes how
 * the account signs in or is recovered needs a proof of presence younger than REAUTH_MAX_AGE,
 * and an account with a second factor never gets tokens from one factor.
 */

const REAUTH_MAX_AGE = 300;
const STEP_MS = 30_000;

/** A copy of a real access token whose `auth_time` is `ageSeconds` old, signed with the test secret. */
async function agedCopy(token: string, ageSeconds: number): Promise<string> {
  const header = decodeProtectedHeader(token);
  const { payload } = decodeJwt(token);
  return new SignJWT({ ...payload, auth_time: Math.floor(Date.now() / 1000) - ageSeconds })
    .setProtectedHeader({ alg: header.alg!, typ: 'at+jwt', ...(header.kid ? { kid: header.kid } : {}) })
    .sign(new TextEncoder().encode(TEST_JWT_SECRET));
}

async function awayFromStepEdge(): Promise<void> {
  const intoStep = Date.now() % STEP_MS;
  if (intoStep > STEP_MS - 8_000) await sleep(STEP_MS - intoStep + 500);
}

describe('proof of presence against a stolen access token', () => {
  const fixture = useTestApp({ sms: true, env: SMS_LOGINS });
  let app: NestFastifyApplication;
  let db: DataSource;
  let sms: SmsReceiver;
  beforeAll(() => void ({ app, db, sms } = fixture));

  const server = () => app.getHttpServer();
  const send = (method: 'post' | 'delete', path: string, token: string, body: object = {}) =>
    request(server())[method](path).set('authorization', `Bearer ${token}`).send(body);

  /** Every sensitive route of the account, with a body that would otherwise be accepted or reach the service. */
  const sensitive: [method: 'post' | 'delete', path: string, body: () => object][] = [
    ['post', '/api/account/email', () => ({ email: uniqueEmail('attacker') })],
    ['post', '/api/account/mobile', () => ({ mobile: uniqueMobile() })],
    ['post', '/api/account/mobile/confirm', () => ({ code: '123456' })],
    ['post', '/api/account/totp', () => ({})],
    ['post', '/api/account/totp/confirm', () => ({ code: '123456' })],
    ['delete', '/api/account/totp', () => ({})],
    ['post', '/api/account/identities/any-provider', () => ({})],
    ['delete', `/api/account/identities/${randomUUID()}`, () => ({})],
  ];

  it.each(sensitive)(
    '%s %s with a token whose auth_time is older than REAUTH_MAX_AGE is 403 REAUTHENTICATION_REQUIRED',
    async (method, path, body) => {
      const victim = await registerUser(app, { mobile: uniqueMobile() });
      const stale = await agedCopy(victim.tokens.access_token, REAUTH_MAX_AGE + 5);
      // The copy is a valid token of a live session: only its age is wrong.
      expect((await request(server()).get('/api/account').set('authorization', `Bearer ${stale}`)).status).toBe(200);
      const res = await send(method, path, stale, body());
      expect(res.status).toBe(403);
      expect(res.body.error.code).toBe('REAUTHENTICATION_REQUIRED');
      // Just inside the limit it is not refused for its age.
      const fresh = await agedCopy(victim.tokens.access_token, REAUTH_MAX_AGE - 30);
      const inside = await send(method, path, fresh, body());
      expect(inside.body.error?.code).not.toBe('REAUTHENTICATION_REQUIRED');
    },
  );

  it('leaves the other account routes open to a valid token of any age', async () => {
    const victim = await registerUser(app);
    const stale = await agedCopy(victim.tokens.access_token, REAUTH_MAX_AGE + 3600);
    const auth = { authorization: `Bearer ${stale}` };
    expect((await request(server()).get('/api/account').set(auth)).status).toBe(200);
    expect((await request(server()).patch('/api/account').set(auth).send({ name: 'Renamed' })).status).toBe(200);
    expect((await request(server()).get('/api/account/sessions').set(auth)).status).toBe(200);
    expect((await request(server()).post('/api/account/sessions/revoke-others').set(auth).send({})).status).toBe(200);
    // The password change keeps its own proof, the current password.
    const wrongCurrent = await request(server()).post('/api/account/password').set(auth).send({
      current_password: 'Not-The-Password-1',
      password: 'Another-Plum-Orbit-77',
      password_confirmation: 'Another-Plum-Orbit-77',
    });
    expect(wrongCurrent.status).toBe(401);
    expect(wrongCurrent.body.error.code).toBe('INVALID_CREDENTIALS');
    // Re-authentication itself is what a stale token is for.
    const proof = await request(server())
      .post('/api/account/reauthenticate')
      .set(auth)
      .send({ password: victim.password });
    expect(proof.status).toBe(200);
  });

  it('a token without auth_time is never fresh', async () => {
    const victim = await registerUser(app);
    const { payload } = decodeJwt(victim.tokens.access_token);
    delete payload.auth_time;
    const bare = await new SignJWT(payload)
      .setProtectedHeader({ alg: 'HS256', typ: 'at+jwt' })
      .sign(new TextEncoder().encode(TEST_JWT_SECRET));
    const res = await send('post', '/api/account/totp', bare);
    expect(res.status).toBe(403);
    expect(res.body.error.code).toBe('REAUTHENTICATION_REQUIRED');
  });

  it("account takeover by mobile: a stale token cannot move the mobile, and the SMS login stays the victim's", async () => {
    const victimMobile = uniqueMobile();
    const attackerMobile = uniqueMobile();
    const victim = await registerUser(app, { mobile: victimMobile });
    const stolen = await agedCopy(victim.tokens.access_token, REAUTH_MAX_AGE + 60);
    const asked = await send('post', '/api/account/mobile', stolen, { mobile: attackerMobile });
    expect(asked.status).toBe(403);
    expect(asked.body.error.code).toBe('REAUTHENTICATION_REQUIRED');
    const confirmed = await send('post', '/api/account/mobile/confirm', stolen, { code: '123456' });
    expect(confirmed.status).toBe(403);
    const pending = await db.query(`SELECT 1 FROM account_change_requests WHERE user_id = $1`, [victim.id]);
    expect(pending).toEqual([]);
    // Guessing the password to re-authenticate costs lockout attempts like a login.
    const guess = await send('post', '/api/account/reauthenticate', stolen, { password: 'Guessed-Password-1' });
    expect(guess.status).toBe(401);
    expect(guess.body.error.code).toBe('INVALID_CREDENTIALS');
    const [{ mobile }] = await db.query(`SELECT mobile FROM users WHERE id = $1`, [victim.id]);
    expect(mobile).toBe(victimMobile);
    // The holder, re-authenticated, can change it.
    const proof = await send('post', '/api/account/reauthenticate', victim.tokens.access_token, {
      password: victim.password,
    });
    expect(proof.status).toBe(200);
    const own = await send('post', '/api/account/mobile', proof.body.data.access_token, { mobile: attackerMobile });
    expect(own.status).toBe(200);
  });

  it('account takeover by email: a stale token cannot ask for an email change', async () => {
    const victim = await registerUser(app);
    const stolen = await agedCopy(victim.tokens.access_token, REAUTH_MAX_AGE + 60);
    const res = await send('post', '/api/account/email', stolen, { email: uniqueEmail('attacker') });
    expect(res.status).toBe(403);
    expect(res.body.error.code).toBe('REAUTHENTICATION_REQUIRED');
    expect(await db.query(`SELECT 1 FROM account_change_requests WHERE user_id = $1`, [victim.id])).toEqual([]);
  });

  it("second-factor hijack: a stale token cannot enrol the attacker's app; the holder's login asks for nothing", async () => {
    const victim = await registerUser(app);
    const stolen = await agedCopy(victim.tokens.access_token, REAUTH_MAX_AGE + 60);
    const started = await send('post', '/api/account/totp', stolen);
    expect(started.status).toBe(403);
    expect(started.body.error.code).toBe('REAUTHENTICATION_REQUIRED');
    const confirmed = await send('post', '/api/account/totp/confirm', stolen, { code: '123456' });
    expect(confirmed.status).toBe(403);
    expect(await db.query(`SELECT 1 FROM totp_authenticators WHERE user_id = $1`, [victim.id])).toEqual([]);
    const res = await login(app, { email: victim.email, password: victim.password });
    expect(res.status).toBe(200);
    expect(res.body.data.access_token).toEqual(expect.any(String));
  });

  it('the SMS login does not skip an enrolled app: verify-otp answers a challenge without sms, tokens come after the app', async () => {
    const mobile = uniqueMobile();
    const victim = await registerUser(app, { mobile });
    await awayFromStepEdge();
    const started = await send('post', '/api/account/totp', victim.tokens.access_token);
    const device = URI.parse(started.body.data.otpauth_uri) as TOTP;
    const enrolled = await send('post', '/api/account/totp/confirm', victim.tokens.access_token, {
      code: device.generate({ timestamp: Date.now() - STEP_MS }),
    });
    expect(enrolled.status).toBe(200);

    // A SIM swap gives the attacker the SMS code.
    expect((await request(server()).post('/api/auth/send-otp').send({ mobile })).status).toBe(200);
    const verified = await request(server())
      .post('/api/auth/verify-otp')
      .send({ mobile, otp: await sms.codeFor(mobile) });
    expect(verified.status).toBe(200);
    expect(verified.body.data).toMatchObject({ requires_otp: true, temp_token: expect.any(String) });
    expect(verified.body.data.methods).toEqual(['totp', 'recovery']);
    expect(verified.body.data).not.toHaveProperty('access_token');
    expect(verified.headers['set-cookie']).toBeUndefined();

    // The SMS cannot stand in for the second factor it already was.
    const bySms = await request(server())
      .post('/api/auth/otp/verify-2fa')
      .send({ temp_token: verified.body.data.temp_token, code: '123456', method: 'sms' });
    expect(bySms.status).toBe(400);
    expect(bySms.body.error.code).toBe('VALIDATION_FAILED');

    const byApp = await request(server())
      .post('/api/auth/otp/verify-2fa')
      .send({ temp_token: verified.body.data.temp_token, code: device.generate(), method: 'totp' });
    expect(byApp.status).toBe(200);
    expect(decodeJwt(byApp.body.data.access_token).payload.amr).toEqual(['sms', 'otp', 'mfa']);
  });
});

describe('REAUTH_MAX_AGE from the configuration', () => {
  const fixture = useTestApp({ database: 'seeded', env: { REAUTH_MAX_AGE: '3' } });

  it('refuses a sensitive action once the sign-in is older than REAUTH_MAX_AGE, and re-authentication renews it', async () => {
    const server = fixture.app.getHttpServer();
    const user = await registerUser(fixture.app);
    const enrol = (token: string) =>
      request(server).post('/api/account/totp').set('authorization', `Bearer ${token}`).send({});
    expect((await enrol(user.tokens.access_token)).status).toBe(200);
    await sleep(4100);
    const stale = await enrol(user.tokens.access_token);
    expect(stale.status).toBe(403);
    expect(stale.body.error.code).toBe('REAUTHENTICATION_REQUIRED');
    const proof = await request(server)
      .post('/api/account/reauthenticate')
      .set('authorization', `Bearer ${user.tokens.access_token}`)
      .send({ password: user.password });
    expect(proof.status).toBe(200);
    expect((await enrol(proof.body.data.access_token)).status).toBe(200);
  });
});
