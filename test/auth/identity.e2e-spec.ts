import { hash as argon2Hash } from '@node-rs/argon2';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { createHmac, randomBytes, randomInt } from 'node:crypto';
import request, { type Response } from 'supertest';
import type { DataSource } from 'typeorm';
import {
  decodeJwt,
  login,
  me,
  registerUser,
  registrationBody,
  TEST_PASSWORD,
  uniqueEmail,
  uniqueMobile,
} from '../support/auth-factory.js';
import { useTestApp } from '../support/fixture.js';
import { TEST_JWT_SECRET } from '../support/test-config.js';

/** ASCII written in full-width forms (U+FF01..U+FF5E), as an East Asian keyboard may type it. */
const fullWidth = (text: string) => text.replace(/[!-~]/g, (c) => String.fromCharCode(c.charCodeAt(0) + 0xfee0));
const hex = () => randomBytes(4).toString('hex');
const b64url = (value: unknown) => Buffer.from(JSON.stringify(value), 'utf8').toString('base64url');

function expectValidationFailure(res: Response, field: string): void {
  expect(res.status).toBe(400);
  expect(res.body).toEqual({
    success: false,
    error: { code: 'VALIDATION_FAILED', message: expect.any(String), details: expect.any(Array) },
  });
  expect(res.body.error.details.map((detail: { field: string }) => detail.field)).toContain(field);
}

function expectConflict(res: Response, field: string): void {
  expect(res.status).toBe(409);
  expect(res.body.error.code).toBe('CONFLICT');
  expect(res.body.error.details).toEqual([{ field, message: expect.any(String) }]);
}

describe('one person, one account: identity normalisation', () => {
  let app: NestFastifyApplication;
  let db: DataSource;

  const fixture = useTestApp();
  beforeAll(() => void ({ app, db } = fixture));

  const register = (body: Record<string, unknown>) =>
    request(app.getHttpServer()).post('/api/auth/register').send(body);
  const withPassword = (password: string, overrides: Record<string, unknown> = {}) =>
    registrationBody({ password, password_confirmation: password, ...overrides });

  describe('mobiles', () => {
    it('takes +4915112345678 and 004915112345678 for one number: the second registration is 409', async () => {
      const digits = String(randomInt(0, 1e8)).padStart(8, '0');
      const first = await register(registrationBody({ mobile: `+49151${digits}` }));
      expect(first.status).toBe(201);
      expect(first.body.data.user.mobile).toBe(`+49151${digits}`);
      expectConflict(await register(registrationBody({ mobile: `0049151${digits}` })), 'mobile');
    });

    it('stores a 00-prefixed number in E.164 and signs it in written either way', async () => {
      const mobile = uniqueMobile();
      const user = await registerUser(app, { mobile: `00${mobile.slice(1)}` });
      expect(user.mobile).toBe(mobile);
      expect((await login(app, { mobile, password: user.password })).status).toBe(200);
      expect(
        (await login(app, { mobile: `00 ${mobile.slice(1, 3)} ${mobile.slice(3)}`, password: user.password })).status,
      ).toBe(200);
    });

    it.each([['+49 151'], ['+4479123456789'], ['+999 1234 5678']])(
      'refuses the invalid number %j with 400',
      async (mobile) => {
        expectValidationFailure(await register(registrationBody({ mobile })), 'mobile');
      },
    );

    it('keeps a number without a country prefix as its digits when DEFAULT_PHONE_REGION is unset', async () => {
      const national = `0${uniqueMobile().slice(3)}`;
      const res = await register(registrationBody({ mobile: national }));
      expect(res.status).toBe(201);
      expect(res.body.data.user.mobile).toBe(national);
    });
  });

  describe('emails', () => {
    it('refuses a full-width spelling of a taken email: 409', async () => {
      const user = await registerUser(app);
      const res = await register(registrationBody({ email: fullWidth(user.email) }));
      expectConflict(res, 'email');
    });

    it.each([
      [
        'josé NFC then NFD',
        (tag: string) => `jos\u00e9-${tag}@example.com`,
        (tag: string) => `jose\u0301-${tag}@example.com`,
      ],
      [
        'josé NFD then NFC',
        (tag: string) => `jose\u0301-${tag}@example.com`,
        (tag: string) => `jos\u00e9-${tag}@example.com`,
      ],
      [
        'the ligature ﬁ then fi',
        (tag: string) => `\ufb01le-${tag}@example.com`,
        (tag: string) => `file-${tag}@example.com`,
      ],
      [
        'exämple.com then its ASCII form',
        (tag: string) => `ann-${tag}@exämple.com`,
        (tag: string) => `ann-${tag}@xn--exmple-cua.com`,
      ],
      [
        'the ASCII form then exämple.com',
        (tag: string) => `ann-${tag}@xn--exmple-cua.com`,
        (tag: string) => `ann-${tag}@EXÄMPLE.com`,
      ],
    ])('takes %s for one address: 409', async (_label, first, second) => {
      const tag = hex();
      expect((await register(registrationBody({ email: first(tag) }))).status).toBe(201);
      expectConflict(await register(registrationBody({ email: second(tag) })), 'email');
    });

    it('stores the domain in its ASCII form and signs in with either spelling', async () => {
      const tag = hex();
      const user = await registerUser(app, { email: `ann-${tag}@exämple.com` });
      expect(user.email).toBe(`ann-${tag}@xn--exmple-cua.com`);
      expect((await login(app, { email: `ann-${tag}@exämple.com`, password: user.password })).status).toBe(200);
      expect(
        (
          await request(app.getHttpServer())
            .post('/api/auth/forgot-password')
            .send({ email: `ann-${tag}@exämple.com` })
        ).status,
      ).toBe(200);
    });

    it.each([
      ['U+200B', '\u200b'],
      ['U+00AD', '\u00ad'],
      ['U+202E', '\u202e'],
      ['U+0007', '\u0007'],
    ])('refuses an email holding %s with 400', async (_label, hidden) => {
      const email = uniqueEmail();
      expectValidationFailure(await register(registrationBody({ email: `a${hidden}${email}` })), 'email');
      expectValidationFailure(
        await register(registrationBody({ email: email.replace('@example', `@exam${hidden}ple`) })),
        'email',
      );
      expectValidationFailure(await login(app, { email: `a${hidden}${email}`, password: TEST_PASSWORD }), 'email');
    });
  });

  describe('names', () => {
    it.each([
      ['U+202E', 'Ada\u202eecalevoL'],
      ['U+2066', '\u2066Ada\u2069'],
      ['U+202A', 'Ada\u202a'],
      ['a line feed', 'Ada\nLovelace'],
    ])('refuses a name holding %s with 400', async (_label, name) => {
      expectValidationFailure(await register(registrationBody({ name })), 'name');
    });

    it('keeps zero-width joiners, which some scripts need', async () => {
      const res = await register(registrationBody({ name: 'می\u200cخواهم \u200d' }));
      expect(res.status).toBe(201);
      expect(res.body.data.user.name).toBe('می\u200cخواهم \u200d');
    });
  });

  describe('passwords', () => {
    it('signs in a password registered composed (Café, NFC) and typed decomposed (NFD)', async () => {
      const composed = `Caf\u00e9-Orbit-${hex()}`;
      const user = await registerUser(app, withPassword(composed));
      const res = await login(app, { email: user.email, password: composed.normalize('NFD') });
      expect(res.status).toBe(200);
      expect(res.body.data.user.id).toBe(user.id);
    });

    it('signs in a password registered in full-width letters with its NFKC form', async () => {
      const plain = `Plum-Orbit-${hex()}`;
      const user = await registerUser(app, withPassword(fullWidth(plain)));
      expect((await login(app, { email: user.email, password: plain })).status).toBe(200);
    });

    it('accepts a confirmation typed decomposed', async () => {
      const composed = `Caf\u00e9-Lantern-${hex()}`;
      const res = await register(
        registrationBody({ password: composed, password_confirmation: composed.normalize('NFD') }),
      );
      expect(res.status).toBe(201);
    });

    it.each([
      ['twelve spaces', ' '.repeat(12)],
      ['twelve U+200B', '\u200b'.repeat(12)],
      ['ideographic spaces and joiners', '\u3000\u2060'.repeat(6)],
    ])('refuses %s as a password with 400', async (_label, password) => {
      expectValidationFailure(await register(withPassword(password)), 'password');
    });

    it('counts the length in code points after normalisation', async () => {
      // Eight characters as the user sees them, sixteen UTF-16 units: accepted.
      expect((await register(withPassword('😀🙂😎🤖🎉🚀🌈🍀'))).status).toBe(201);
      // Seven letters, the last written decomposed (eight code points before NFKC, seven after): refused.
      expectValidationFailure(await register(withPassword('Zyxwvue\u0301'.normalize('NFD').slice(0, 8))), 'password');
    });

    it('still signs in a password hashed before normalisation, then stores a hash of its normalised form', async () => {
      const decomposed = `Cafe\u0301-Legacy-${hex()}`;
      const user = await registerUser(app);
      // A hash of the raw, decomposed form, as the service stored it before it normalised passwords.
      const legacyHash = await argon2Hash(decomposed, { algorithm: 2, memoryCost: 1024, timeCost: 1, parallelism: 1 });
      await db.query(`UPDATE users SET password_hash = $1 WHERE id = $2`, [legacyHash, user.id]);

      const signedIn = await login(app, { email: user.email, password: decomposed });
      expect(signedIn.status).toBe(200);
      const [{ password_hash: rehashed }] = await db.query(`SELECT password_hash FROM users WHERE id = $1`, [user.id]);
      expect(rehashed).not.toBe(legacyHash);
      expect(rehashed).toMatch(/^\$argon2id\$/);
      // The new hash is of the normalised form: the composed spelling now signs in too, and the raw one still does.
      expect((await login(app, { email: user.email, password: decomposed.normalize('NFC') })).status).toBe(200);
      expect((await login(app, { email: user.email, password: decomposed })).status).toBe(200);
    });

    it('refuses a wrong password against a legacy hash', async () => {
      const user = await registerUser(app);
      const legacyHash = await argon2Hash(`Cafe\u0301-Legacy-${hex()}`, {
        algorithm: 2,
        memoryCost: 1024,
        timeCost: 1,
        parallelism: 1,
      });
      await db.query(`UPDATE users SET password_hash = $1 WHERE id = $2`, [legacyHash, user.id]);
      expect((await login(app, { email: user.email, password: `Cafe\u0301-Wrong-${hex()}` })).status).toBe(401);
      const [{ password_hash: unchanged }] = await db.query(`SELECT password_hash FROM users WHERE id = $1`, [user.id]);
      expect(unchanged).toBe(legacyHash);
    });
  });

  describe('access tokens', () => {
    const now = () => Math.floor(Date.now() / 1000);
    /** Signed by hand, so the claims are exactly these (jsonwebtoken adds or drops `iat` itself). */
    const sign = (payload: Record<string, unknown>) => {
      const type = payload.token_type === 'refresh' ? 'refresh+jwt' : 'at+jwt';
      const head = `${b64url({ alg: 'HS256', typ: type })}.${b64url(payload)}`;
      return `${head}.${createHmac('sha256', TEST_JWT_SECRET).update(head).digest('base64url')}`;
    };
    const UNAUTHENTICATED = { success: false, error: { code: 'UNAUTHENTICATED', message: expect.any(String) } };

    async function liveClaims(): Promise<Record<string, unknown>> {
      const user = await registerUser(app);
      const { iat: _iat, exp: _exp, ...claims } = decodeJwt(user.tokens.access_token).payload;
      return claims;
    }

    it('refuses a correctly signed token of a live session without exp: 401', async () => {
      const res = await me(app, sign({ ...(await liveClaims()), iat: now() }));
      expect(res.status).toBe(401);
      expect(res.body).toEqual(UNAUTHENTICATED);
    });

    it('refuses a correctly signed token of a live session without iat: 401', async () => {
      const res = await me(app, sign({ ...(await liveClaims()), exp: now() + 600 }));
      expect(res.status).toBe(401);
      expect(res.body).toEqual(UNAUTHENTICATED);
    });

    it('refuses a token issued an hour ahead: 401; accepts one issued within the 60 s clock skew', async () => {
      const claims = await liveClaims();
      const ahead = await me(app, sign({ ...claims, iat: now() + 3600, exp: now() + 4500 }));
      expect(ahead.status).toBe(401);
      expect(ahead.body).toEqual(UNAUTHENTICATED);
      expect((await me(app, sign({ ...claims, iat: now() + 30, exp: now() + 900 }))).status).toBe(200);
    });

    it('refuses a refresh token issued an hour ahead: 401', async () => {
      const user = await registerUser(app);
      const { iat: _iat, exp: _exp, ...claims } = decodeJwt(user.tokens.refresh_token).payload;
      const res = await request(app.getHttpServer())
        .post('/api/auth/refresh')
        .send({ refresh_token: sign({ ...claims, iat: now() + 3600, exp: now() + 7200 }) });
      expect(res.status).toBe(401);
    });

    it.each([['bearer'], ['BEARER'], ['bEaReR']])('reads the scheme %s case-insensitively: 200', async (scheme) => {
      const user = await registerUser(app);
      const res = await request(app.getHttpServer())
        .get('/api/auth/me')
        .set('authorization', `${scheme} ${user.tokens.access_token}`);
      expect(res.status).toBe(200);
      expect(res.body.data.id).toBe(user.id);
    });
  });
});

describe('DEFAULT_PHONE_REGION', () => {
  let app: NestFastifyApplication;

  const fixture = useTestApp({ env: { DEFAULT_PHONE_REGION: 'DE' } });
  beforeAll(() => void ({ app } = fixture));

  const register = (body: Record<string, unknown>) =>
    request(app.getHttpServer()).post('/api/auth/register').send(body);

  it('reads a number without a country prefix in the region: one account with its E.164 spelling', async () => {
    const mobile = uniqueMobile();
    const national = `0${mobile.slice(3, 6)} ${mobile.slice(6)}`;
    const res = await register(registrationBody({ mobile: national }));
    expect(res.status).toBe(201);
    expect(res.body.data.user.mobile).toBe(mobile);
    expectConflict(await register(registrationBody({ mobile })), 'mobile');
    expect((await login(app, { mobile: national, password: TEST_PASSWORD })).status).toBe(200);
  });

  it('refuses a number that is not valid in the region with 400', async () => {
    expectValidationFailure(await register(registrationBody({ mobile: '0301' })), 'mobile');
    expectValidationFailure(await register(registrationBody({ mobile: '012345678901234' })), 'mobile');
  });
});
