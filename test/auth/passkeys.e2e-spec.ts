import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import request from 'supertest';
import type { DataSource } from 'typeorm';
import {
  agedCopy,
  decodeJwt,
  me,
  registerUser,
  setCookies,
  sleep,
  type RegisteredUser,
  uniqueMobile,
} from '../support/auth-factory.js';
import { grantRoles } from '../support/rbac-factory.js';
import { SmsReceiver } from '../support/sms-receiver.js';
import { SMS_LOGINS, useTestApp } from '../support/fixture.js';
import { SoftAuthenticator, strangerKey, type SoftCredential } from '../support/soft-authenticator.js';

// The test app's APP_URL is the default http://localhost:3000: RP ID `localhost`, that one origin.
const ORIGIN = 'http://localhost:3000';
const RP_ID = 'localhost';
const REFUSAL = { success: false, error: { code: 'INVALID_CREDENTIALS', message: 'Invalid credentials.' } };
const amrOf = (token: string) => decodeJwt(token).payload.amr;

describe('passkeys (WebAuthn) through HTTP with a software authenticator', () => {
  const fixture = useTestApp({ sms: true, env: SMS_LOGINS });
  let db: DataSource;
  let sms: SmsReceiver;
  let app: NestFastifyApplication;
  beforeAll(() => void ({ db, sms, app } = fixture));

  const server = () => app.getHttpServer();
  const authed = (token: string) => ({
    get: (path: string) => request(server()).get(path).set('authorization', `Bearer ${token}`),
    post: (path: string, body: object = {}) =>
      request(server()).post(path).set('authorization', `Bearer ${token}`).send(body),
    patch: (path: string, body: object) =>
      request(server()).patch(path).set('authorization', `Bearer ${token}`).send(body),
    delete: (path: string) => request(server()).delete(path).set('authorization', `Bearer ${token}`),
  });
  const signInOptions = (body: object = {}) => request(server()).post('/api/auth/passkey/options').send(body);
  const signInVerify = (body: object) => request(server()).post('/api/auth/passkey/verify').send(body);

  /** A new account with one passkey on a new software authenticator. */
  async function withPasskey(
    overrides: Record<string, unknown> = {},
  ): Promise<{ user: RegisteredUser; device: SoftAuthenticator; credential: SoftCredential; passkeyId: string }> {
    const user = await registerUser(app, overrides);
    const device = new SoftAuthenticator(ORIGIN, RP_ID);
    const options = await authed(user.tokens.access_token).post('/api/account/passkeys/options');
    expect(options.status).toBe(200);
    const { response, credential } = device.register(options.body.data);
    const created = await authed(user.tokens.access_token).post('/api/account/passkeys', {
      ...response,
      name: 'Laptop',
    });
    expect(created.status).toBe(201);
    return { user, device, credential, passkeyId: created.body.data.id };
  }

  async function signIn(device: SoftAuthenticator, credential?: SoftCredential, email?: string) {
    const options = await signInOptions(email ? { email } : {});
    expect(options.status).toBe(200);
    return signInVerify(device.assert(options.body.data, credential));
  }

  describe('registration', () => {
    it('gives creation options, registers the answer with a name, lists, renames and excludes it next time', async () => {
      const user = await registerUser(app);
      const device = new SoftAuthenticator(ORIGIN, RP_ID);
      const options = await authed(user.tokens.access_token).post('/api/account/passkeys/options');
      expect(options.status).toBe(200);
      expect(options.body.data).toMatchObject({
        rp: { id: RP_ID },
        user: { name: user.email },
        attestation: 'none',
        authenticatorSelection: { residentKey: 'required', userVerification: 'preferred' },
        excludeCredentials: [],
      });
      expect(options.body.data.challenge).toMatch(/^[A-Za-z0-9_-]{43}$/);

      const { response, credential } = device.register(options.body.data);
      const created = await authed(user.tokens.access_token).post('/api/account/passkeys', {
        ...response,
        name: 'Work laptop',
      });
      expect(created.status).toBe(201);
      expect(created.body.data).toEqual({
        id: expect.any(String),
        name: 'Work laptop',
        created_at: expect.any(String),
        last_used_at: null,
      });

      const listed = await authed(user.tokens.access_token).get('/api/account/passkeys');
      expect(listed.status).toBe(200);
      expect(listed.body.data).toEqual({ items: [created.body.data], total: 1 });

      const renamed = await authed(user.tokens.access_token).patch(`/api/account/passkeys/${created.body.data.id}`, {
        name: '  Phone  ',
      });
      expect(renamed.status).toBe(200);
      expect(renamed.body.data.name).toBe('Phone');

      const again = await authed(user.tokens.access_token).post('/api/account/passkeys/options');
      expect(again.body.data.excludeCredentials).toEqual([
        { id: credential.id, type: 'public-key', transports: ['internal'] },
      ]);

      const [row] = await db.query(`SELECT transports, device_type, backed_up, counter FROM passkeys WHERE id = $1`, [
        created.body.data.id,
      ]);
      expect(row).toEqual({ transports: 'internal', device_type: 'singleDevice', backed_up: false, counter: '0' });
      const [audit] = await db.query(
        `SELECT actor_id FROM audit_events WHERE type = 'passkey.register' AND actor_id = $1`,
        [user.id],
      );
      expect(audit).toBeDefined();
    });

    it('stores the challenge hashed, and an answer is accepted once, for its own account only', async () => {
      const user = await registerUser(app);
      const other = await registerUser(app);
      const device = new SoftAuthenticator(ORIGIN, RP_ID);
      const options = await authed(user.tokens.access_token).post('/api/account/passkeys/options');
      const stored: { challenge_hash: string; ceremony: string }[] = await db.query(
        `SELECT challenge_hash, ceremony FROM webauthn_challenges WHERE user_id = $1`,
        [user.id],
      );
      expect(stored).toEqual([{ challenge_hash: expect.stringMatching(/^[0-9a-f]{64}$/), ceremony: 'registration' }]);
      expect(stored[0].challenge_hash).not.toContain(options.body.data.challenge);

      const { response } = device.register(options.body.data);
      // Another account cannot use this account's registration challenge.
      const stolen = await authed(other.tokens.access_token).post('/api/account/passkeys', response);
      expect(stolen.status).toBe(400);
      expect(stolen.body.error.code).toBe('VALIDATION_FAILED');
      // The challenge was used by that attempt; a second answer to it is refused too.
      const replay = await authed(user.tokens.access_token).post('/api/account/passkeys', response);
      expect(replay.status).toBe(400);
    });

    it('refuses a registration for another origin, unknown fields, and no access token', async () => {
      const user = await registerUser(app);
      const device = new SoftAuthenticator(ORIGIN, RP_ID);
      const options = await authed(user.tokens.access_token).post('/api/account/passkeys/options');
      const { response } = device.register(options.body.data, { origin: 'https://evil.example' });
      const refused = await authed(user.tokens.access_token).post('/api/account/passkeys', response);
      expect(refused.status).toBe(400);

      const unknown = await authed(user.tokens.access_token).post('/api/account/passkeys', {
        ...response,
        is_admin: true,
      });
      expect(unknown.status).toBe(400);
      expect(unknown.body.error.code).toBe('VALIDATION_FAILED');

      const anonymous = await request(server()).post('/api/account/passkeys/options').send({});
      expect(anonymous.status).toBe(401);
      expect((await authed(user.tokens.access_token).get('/api/account/passkeys')).body.data.total).toBe(0);
    });

    it('answers 404 for a passkey of someone else', async () => {
      const { passkeyId } = await withPasskey();
      const stranger = await registerUser(app);
      const renamed = await authed(stranger.tokens.access_token).patch(`/api/account/passkeys/${passkeyId}`, {
        name: 'Mine now',
      });
      expect(renamed.status).toBe(404);
      const removed = await authed(stranger.tokens.access_token).delete(`/api/account/passkeys/${passkeyId}`);
      expect(removed.status).toBe(404);
    });
  });

  describe('sign-in without a password', () => {
    it('signs in with a discoverable passkey: tokens, cookies, last use recorded', async () => {
      const { user, device, passkeyId } = await withPasskey();
      const options = await signInOptions();
      expect(options.status).toBe(200);
      expect(options.body.data).toMatchObject({ rpId: RP_ID, userVerification: 'required' });
      expect(options.body.data.allowCredentials).toBeUndefined();

      const res = await signInVerify(device.assert(options.body.data));
      expect(res.status).toBe(200);
      expect(res.body.data).toMatchObject({ token_type: 'Bearer', user: { id: user.id, email: user.email } });
      expect(amrOf(res.body.data.access_token)).toEqual(['hwk', 'user', 'mfa']);
      expect(Object.keys(setCookies(res))).toEqual(expect.arrayContaining(['access_token', 'refresh_token']));
      expect((await me(app, res.body.data.access_token)).body.data.id).toBe(user.id);

      const [row] = await db.query(`SELECT last_used_at, counter FROM passkeys WHERE id = $1`, [passkeyId]);
      expect(row.last_used_at).not.toBeNull();
      expect(row.counter).toBe('1');
      const events: { type: string }[] = await db.query(
        `SELECT type FROM audit_events WHERE actor_id = $1 AND type IN ('passkey.use', 'passkey.login')`,
        [user.id],
      );
      expect(events.map((event) => event.type).sort()).toEqual(['passkey.login', 'passkey.use']);
    });

    it('answers the same shape for every input, with no allowCredentials: the address’s passkeys are not told', async () => {
      const { user, device, credential } = await withPasskey();
      const known = await signInOptions({ email: user.email.toUpperCase() });
      expect(known.status).toBe(200);
      expect(known.body.data.allowCredentials).toBeUndefined();
      expect(JSON.stringify(known.body.data)).not.toContain(credential.id);
      // The account's own passkey still signs in: it is discoverable.
      expect((await signInVerify(device.assert(known.body.data))).status).toBe(200);

      const answers = [
        known,
        await signInOptions({ email: 'nobody-passkey@example.com' }),
        await signInOptions({ email: (await registerUser(app)).email }),
        await signInOptions(),
      ];
      const shape = (body: Record<string, unknown>) => ({ ...body, challenge: typeof body.challenge });
      for (const res of answers) {
        expect(res.status).toBe(200);
        expect(shape(res.body.data)).toEqual(shape(known.body.data));
      }
      expect(new Set(answers.map((res) => res.body.data.challenge)).size).toBe(answers.length);
    });

    it('refuses, with one body, a replayed challenge, another origin, another RP ID, an unknown credential, another key, a counter going backwards, no user verification', async () => {
      const { user, device, credential } = await withPasskey();
      const bodies: unknown[] = [];
      const refuse = async (assertion: Record<string, unknown>) => {
        const res = await signInVerify(assertion);
        expect(res.status).toBe(401);
        bodies.push(res.body);
      };
      const fresh = async () => (await signInOptions()).body.data as { challenge: string };

      // Replayed: a used challenge, answered again.
      const options = await fresh();
      expect((await signInVerify(device.assert(options))).status).toBe(200);
      await refuse(device.assert(options));
      // A challenge the service never made.
      await refuse(device.assert(await fresh(), credential, { challenge: 'A'.repeat(43) }));
      await refuse(device.assert(await fresh(), credential, { origin: 'https://evil.example' }));
      await refuse(device.assert(await fresh(), credential, { rpId: 'evil.example' }));
      const unknown = new SoftAuthenticator(ORIGIN, RP_ID);
      unknown.register({ challenge: 'x', user: { id: Buffer.from(user.id).toString('base64url') } });
      await refuse(unknown.assert(await fresh()));
      await refuse(device.assert(await fresh(), credential, { signWith: strangerKey() }));
      await refuse(device.assert(await fresh(), credential, { counter: 1 }));
      await refuse(device.assert(await fresh(), credential, { userVerified: false }));

      expect(bodies).toHaveLength(8);
      for (const body of bodies) expect(body).toEqual(REFUSAL);
      const regressions = await db.query(
        `SELECT details FROM audit_events WHERE type = 'passkey.counter_regression' AND target_id = $1`,
        [user.id],
      );
      expect(regressions).toHaveLength(1);
      // The passkey still works afterwards, with a counter that moves on.
      expect((await signIn(device, credential, undefined)).status).toBe(200);
    });

    it('of two parallel verifications of one challenge, exactly one succeeds', async () => {
      const { device, credential } = await withPasskey();
      const options = (await signInOptions()).body.data;
      const first = device.assert(options, credential, { counter: 10 });
      const second = device.assert(options, credential, { counter: 11 });
      const results = await Promise.all([signInVerify(first), signInVerify(second)]);
      expect(results.map((res) => res.status).sort()).toEqual([200, 401]);
    });

    it('does not take a challenge of another ceremony', async () => {
      const { user, device, credential } = await withPasskey();
      const reauth = await authed(user.tokens.access_token).post('/api/account/reauthenticate/options');
      expect(reauth.status).toBe(200);
      expect(reauth.body.data.allowCredentials).toEqual([
        { id: credential.id, type: 'public-key', transports: ['internal'] },
      ]);
      const res = await signInVerify(device.assert(reauth.body.data));
      expect(res.status).toBe(401);
      expect(res.body).toEqual(REFUSAL);
    });

    it('signs an administrator in with a passkey and no SMS', async () => {
      const mobile = uniqueMobile();
      const { user, device } = await withPasskey({ mobile });
      const [admin] = await db.query(`SELECT id FROM roles WHERE name = 'admin'`);
      await grantRoles(db, user.id, [admin.id]);
      const before = sms.to(mobile).length;
      const res = await signIn(device);
      expect(res.status).toBe(200);
      const profile = await me(app, res.body.data.access_token);
      expect(profile.body.data.roles).toContain('admin');
      expect(amrOf(res.body.data.access_token)).toEqual(['hwk', 'user', 'mfa']);
      await sleep(200);
      expect(sms.to(mobile)).toHaveLength(before);
    });

    it('validates the body', async () => {
      const res = await signInVerify({ id: 'abc', rawId: 'abc', type: 'public-key', response: {} });
      expect(res.status).toBe(400);
      expect(res.body.error.code).toBe('VALIDATION_FAILED');
      expect((await signInOptions({ email: 'not an email' })).status).toBe(400);
      expect((await signInOptions({ extra: 1 })).status).toBe(400);
    });
  });

  describe('as a second factor', () => {
    it('a password sign-in of an account with a passkey gets the challenge, and the passkey completes it', async () => {
      const { user, device, credential } = await withPasskey();
      const login = await request(server())
        .post('/api/auth/login')
        .send({ email: user.email, password: user.password });
      expect(login.status).toBe(200);
      expect(login.body.data).toMatchObject({ requires_otp: true, methods: ['passkey'] });
      expect(login.body.data.access_token).toBeUndefined();
      const passkeyOptions = login.body.data.passkey_options;
      expect(passkeyOptions.allowCredentials).toEqual([
        { id: credential.id, type: 'public-key', transports: ['internal'] },
      ]);

      const wrong = await request(server())
        .post('/api/auth/otp/verify-2fa')
        .send({
          temp_token: login.body.data.temp_token,
          method: 'passkey',
          assertion: device.assert(passkeyOptions, credential, { signWith: strangerKey() }),
        });
      expect(wrong.status).toBe(401);
      expect(wrong.body.error.code).toBe('INVALID_OTP');

      // The failed attempt used the passkey challenge; a new sign-in brings new options.
      const again = await request(server())
        .post('/api/auth/login')
        .send({ email: user.email, password: user.password });
      const done = await request(server())
        .post('/api/auth/otp/verify-2fa')
        .send({
          temp_token: again.body.data.temp_token,
          method: 'passkey',
          assertion: device.assert(again.body.data.passkey_options, credential, { userVerified: false }),
        });
      expect(done.status).toBe(200);
      expect(done.body.data.user.id).toBe(user.id);
      expect(amrOf(done.body.data.access_token)).toEqual(['pwd', 'hwk', 'mfa']);

      const missing = await request(server())
        .post('/api/auth/otp/verify-2fa')
        .send({ temp_token: again.body.data.temp_token, method: 'passkey', code: '123456' });
      expect(missing.status).toBe(400);
    });

    it('offers the passkey beside the app and SMS', async () => {
      const { user } = await withPasskey({ mobile: uniqueMobile() });
      const login = await request(server())
        .post('/api/auth/login')
        .send({ email: user.email, password: user.password });
      expect(login.body.data.methods).toEqual(['passkey', 'sms']);
      expect(login.body.data.passkey_options).toBeDefined();
    });
  });

  describe('fresh authentication, re-authentication and removal', () => {
    it('needs a fresh token to register a passkey or remove one', async () => {
      const { user, passkeyId } = await withPasskey();
      const stale = await agedCopy(user.tokens.access_token, 3600);
      for (const res of [
        await authed(stale).post('/api/account/passkeys/options'),
        await authed(stale).post('/api/account/passkeys', {}),
        await authed(stale).delete(`/api/account/passkeys/${passkeyId}`),
      ]) {
        expect(res.status).toBe(403);
        expect(res.body.error.code).toBe('REAUTHENTICATION_REQUIRED');
      }
      // Listing and renaming are not sensitive.
      expect((await authed(stale).get('/api/account/passkeys')).status).toBe(200);
    });

    it('re-authenticates with a passkey: options for the caller, then a token pair with amr hwk, user, mfa', async () => {
      const { user, device, credential } = await withPasskey();
      const options = await authed(user.tokens.access_token).post('/api/account/reauthenticate/options');
      expect(options.status).toBe(200);
      expect(options.body.data).toMatchObject({ userVerification: 'required' });

      const wrong = await authed(user.tokens.access_token).post('/api/account/reauthenticate', {
        method: 'passkey',
        assertion: device.assert(options.body.data, credential, { signWith: strangerKey() }),
      });
      expect(wrong.status).toBe(401);
      expect(wrong.body.error.code).toBe('INVALID_CREDENTIALS');

      const again = await authed(user.tokens.access_token).post('/api/account/reauthenticate/options');
      const res = await authed(user.tokens.access_token).post('/api/account/reauthenticate', {
        method: 'passkey',
        assertion: device.assert(again.body.data, credential),
      });
      expect(res.status).toBe(200);
      expect(amrOf(res.body.data.access_token)).toEqual(['hwk', 'user', 'mfa']);
      expect(decodeJwt(res.body.data.access_token).payload.sid).toBe(decodeJwt(user.tokens.access_token).payload.sid);

      // The answer of a sign-in ceremony is no proof here.
      const signInOptionsBody = (await signInOptions()).body.data;
      const misplaced = await authed(user.tokens.access_token).post('/api/account/reauthenticate', {
        method: 'passkey',
        assertion: device.assert(signInOptionsBody, credential),
      });
      expect(misplaced.status).toBe(401);
      const missing = await authed(user.tokens.access_token).post('/api/account/reauthenticate', { method: 'passkey' });
      expect(missing.status).toBe(400);
    });

    it('removes a passkey only with a proof that held it (or two factors): the password alone is 403', async () => {
      const { user, device, credential, passkeyId } = await withPasskey();
      // The registration's session proved the password only.
      const refused = await authed(user.tokens.access_token).delete(`/api/account/passkeys/${passkeyId}`);
      expect(refused.status).toBe(403);
      expect(refused.body.error.code).toBe('REAUTHENTICATION_REQUIRED');
      // A fresh password proof is still one factor.
      const byPassword = await authed(user.tokens.access_token).post('/api/account/reauthenticate', {
        password: user.password,
      });
      expect(byPassword.status).toBe(200);
      const stillRefused = await authed(byPassword.body.data.access_token).delete(`/api/account/passkeys/${passkeyId}`);
      expect(stillRefused.status).toBe(403);

      const options = await authed(user.tokens.access_token).post('/api/account/reauthenticate/options');
      const proved = await authed(user.tokens.access_token).post('/api/account/reauthenticate', {
        method: 'passkey',
        assertion: device.assert(options.body.data, credential),
      });
      const token = proved.body.data.access_token;
      const removed = await authed(token).delete(`/api/account/passkeys/${passkeyId}`);
      expect(removed.status).toBe(200);
      expect(removed.body.data).toEqual({});
      expect((await authed(token).get('/api/account/passkeys')).body.data.total).toBe(0);
      const [audit] = await db.query(`SELECT 1 FROM audit_events WHERE type = 'passkey.remove' AND actor_id = $1`, [
        user.id,
      ]);
      expect(audit).toBeDefined();
      // Without a passkey the password alone signs in again.
      const login = await request(server())
        .post('/api/auth/login')
        .send({ email: user.email, password: user.password });
      expect(login.body.data.access_token).toEqual(expect.any(String));
    });

    it('a passkey sign-in may remove a passkey at once', async () => {
      const { device, passkeyId } = await withPasskey();
      const signedIn = await signIn(device);
      expect((await authed(signedIn.body.data.access_token).delete(`/api/account/passkeys/${passkeyId}`)).status).toBe(
        200,
      );
    });

    it('an SMS sign-in of an account with a passkey is completed by the passkey, not by tokens', async () => {
      const mobile = uniqueMobile();
      const { device, credential } = await withPasskey({ mobile });
      expect((await request(server()).post('/api/auth/send-otp').send({ mobile })).status).toBe(200);
      const code = await sms.codeFor(mobile);
      const verified = await request(server()).post('/api/auth/verify-otp').send({ mobile, otp: code });
      expect(verified.status).toBe(200);
      expect(verified.body.data).toMatchObject({ requires_otp: true, methods: ['passkey'] });
      expect(verified.body.data.access_token).toBeUndefined();
      const done = await request(server())
        .post('/api/auth/otp/verify-2fa')
        .send({
          temp_token: verified.body.data.temp_token,
          method: 'passkey',
          assertion: device.assert(verified.body.data.passkey_options, credential),
        });
      expect(done.status).toBe(200);
      expect(amrOf(done.body.data.access_token)).toEqual(['sms', 'hwk', 'mfa']);
    });
  });
});

describe('passkey sign-in under the /api/auth rate limits', () => {
  const fixture = useTestApp({ env: { RATE_LIMIT_PER_MINUTE: '3' } });

  it('answers 429 RATE_LIMITED with Retry-After past the limit, for options and verify alike', async () => {
    const server = fixture.app.getHttpServer();
    const statuses: number[] = [];
    for (let i = 0; i < 4; i++)
      statuses.push((await request(server).post('/api/auth/passkey/options').send({})).status);
    expect(statuses).toEqual([200, 200, 200, 429]);
    const verify = await request(server).post('/api/auth/passkey/verify').send({});
    expect(verify.status).not.toBe(429);
    const limited = await request(server).post('/api/auth/passkey/options').send({});
    expect(limited.status).toBe(429);
    expect(limited.body.error.code).toBe('RATE_LIMITED');
    expect(Number(limited.headers['retry-after'])).toBeGreaterThan(0);
  });
});

describe('a passkey is an enrolled second factor (REQUIRE_2FA_FOR_PRIVILEGED)', () => {
  const fixture = useTestApp({ env: { REQUIRE_2FA_FOR_PRIVILEGED: 'true' } });

  it('opens the admin routes to a privileged account once it registers a passkey', async () => {
    const { app, db } = fixture;
    const server = app.getHttpServer();
    const admin = await registerUser(app);
    const [role] = await db.query(`SELECT id FROM roles WHERE name = 'admin'`);
    await grantRoles(db, admin.id, [role.id]);
    const bearer = `Bearer ${admin.tokens.access_token}`;
    expect((await request(server).get('/api/admin/users').set('authorization', bearer)).status).toBe(403);

    const device = new SoftAuthenticator(ORIGIN, RP_ID);
    const options = await request(server).post('/api/account/passkeys/options').set('authorization', bearer).send({});
    expect(options.status).toBe(200);
    const created = await request(server)
      .post('/api/account/passkeys')
      .set('authorization', bearer)
      .send(device.register(options.body.data).response);
    expect(created.status).toBe(201);
    expect((await request(server).get('/api/admin/users').set('authorization', bearer)).status).toBe(200);
  });
});
