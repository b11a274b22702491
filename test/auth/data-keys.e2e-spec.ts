import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { randomBytes } from 'node:crypto';
import { TOTP, URI } from 'otpauth';
import request from 'supertest';
import { registerUser, sleep, type RegisteredUser } from '../support/auth-factory.js';
import { createTestApp } from '../support/test-app.js';
import { fileDatabase, testDataSource } from '../support/test-database.js';
import { IdTokenKeys } from '../../src/provider/index.js';
import { IdentityProvidersService } from '../../src/upstream/index.js';
import { cliOnTestDatabase } from '../support/cli-runner.js';

const STEP_MS = 30_000;

const secret = () => randomBytes(36).toString('base64url');

const cli = cliOnTestDatabase;

/**
 * The step of the next code: one after the last used (a used step is refused as a replay), which the
 * service accepts up to one step ahead of its clock; waits when that is further ahead.
 */
async function nextStep(lastUsed: number): Promise<number> {
  while (lastUsed + 1 > Math.floor(Date.now() / STEP_MS) + 1) await sleep(500);
  return Math.max(lastUsed + 1, Math.floor(Date.now() / STEP_MS));
}

/**
 * "Rotating a key never disables a factor" (contract, "Keys at rest"): an authenticator app and
 * recovery codes keep signing in after a rotation of JWT_SECRET as `rotate-keys` says, and after a
 * rotation of the data key ring with `rotate-data-key`, the older keys then dropped.
 */
describe('key rotation leaves every second factor working', () => {
  let app: NestFastifyApplication | null = null;
  let user: RegisteredUser;
  let totp: TOTP;
  let recoveryCodes: string[];
  let lastStep = 0;
  const s1 = secret();
  const s2 = secret();
  const s3 = secret();
  const dataKey = secret();

  async function start(env: Record<string, string | undefined>): Promise<NestFastifyApplication> {
    await app?.close();
    app = await createTestApp({ env: { JWT_PREVIOUS_SECRETS: undefined, DATA_KEYS: undefined, ...env } });
    return app;
  }

  afterAll(async () => {
    await app?.close();
  });

  async function signInWith(method: 'totp' | 'recovery'): Promise<number> {
    const server = app!.getHttpServer();
    const login = await request(server).post('/api/auth/login').send({ email: user.email, password: user.password });
    expect(login.status).toBe(200);
    expect(login.body.data.temp_token).toEqual(expect.any(String));
    let code: string;
    if (method === 'totp') {
      lastStep = await nextStep(lastStep);
      code = totp.generate({ timestamp: lastStep * STEP_MS + 1000 });
    } else {
      code = recoveryCodes.shift()!;
    }
    const verified = await request(server)
      .post('/api/auth/otp/verify-2fa')
      .send({ temp_token: login.body.data.temp_token, code, method });
    return verified.status;
  }

  it('enrols an app and keeps its recovery codes under the first JWT_SECRET', async () => {
    const first = await start({ JWT_SECRET: s1 });
    user = await registerUser(first);
    const started = await request(first.getHttpServer())
      .post('/api/account/totp')
      .set('authorization', `Bearer ${user.tokens.access_token}`)
      .send({});
    expect(started.status).toBe(200);
    totp = URI.parse(started.body.data.otpauth_uri) as TOTP;
    lastStep = Math.floor(Date.now() / STEP_MS);
    const confirmed = await request(first.getHttpServer())
      .post('/api/account/totp/confirm')
      .set('authorization', `Bearer ${user.tokens.access_token}`)
      .send({ code: totp.generate() });
    expect(confirmed.status).toBe(200);
    recoveryCodes = [...confirmed.body.data.recovery_codes];
    expect(recoveryCodes).toHaveLength(10);
    // The provider's ID-token key is made (and sealed) when first needed: the JWKS asks for it.
    expect((await request(first.getHttpServer()).get('/.well-known/jwks.json')).status).toBe(200);
    // An upstream provider's client secret, sealed under the ring as the admin API seals it.
    await first.get(IdentityProvidersService).create({ id: user.id, kind: 'user' } as never, {
      slug: `gh-${user.id.slice(0, 8)}`,
      name: 'GitHub',
      type: 'github',
      client_id: 'gh-client',
      client_secret: 'an-upstream-client-secret',
    });
  });

  it('after JWT_SECRET is rotated as rotate-keys says, the app code and a recovery code sign in', async () => {
    const rotated = await cli(['rotate-keys'], { JWT_SECRET: s1 });
    expect(rotated.code).toBe(0);
    const previous = /^JWT_PREVIOUS_SECRETS=(.+)$/m.exec(rotated.output)?.[1];
    expect(previous).toEqual(expect.stringContaining(`${s1}@`));
    // With DATA_KEYS unset, the operator is told what the data needs before the retired secret goes.
    expect(rotated.output).toMatch(/run `rotate-data-key` before removing JWT_PREVIOUS_SECRETS/);
    await start({ JWT_SECRET: s2, JWT_PREVIOUS_SECRETS: previous });
    expect(await signInWith('totp')).toBe(200);
    expect(await signInWith('recovery')).toBe(200);
  });

  it('rotate-data-key re-seals under the first key; with the older keys dropped, both still sign in', async () => {
    const previous = `${s1}@${Math.floor(Date.now() / 1000)}`;
    // Without DATA_KEYS the ring's first key derives from JWT_SECRET: re-seal there, then drop the previous secret.
    const underJwt = await cli(['rotate-data-key'], { JWT_SECRET: s2, JWT_PREVIOUS_SECRETS: previous });
    expect(underJwt.code).toBe(0);
    expect(underJwt.output).toMatch(/authenticator apps: 1 re-sealed, 0 already current, 0 unreadable/);
    expect(underJwt.output).toMatch(/ID-token keys: +[1-9]\d* re-sealed, 0 already current, 0 unreadable/);
    expect(underJwt.output).toMatch(/upstream secrets: +1 re-sealed, 0 already current, 0 unreadable/);
    await start({ JWT_SECRET: s2 });
    expect(await signInWith('totp')).toBe(200);

    // A data key of its own: the new key first, the current JWT_SECRET after it, re-sealed, then dropped.
    const ring = await cli(['rotate-data-key'], { JWT_SECRET: s2, DATA_KEYS: `${dataKey},${s2}` });
    expect(ring.code).toBe(0);
    expect(ring.output).toMatch(/authenticator apps: 1 re-sealed, 0 already current, 0 unreadable/);
    expect(ring.output).toMatch(/upstream secrets: +1 re-sealed, 0 already current, 0 unreadable/);
    // The data key ring is now independent of JWT_SECRET: rotating it again, without any previous secret, loses nothing.
    const last = await start({ JWT_SECRET: s3, DATA_KEYS: dataKey });
    expect(await signInWith('totp')).toBe(200);
    expect(await signInWith('recovery')).toBe(200);
    // The provider still signs ID tokens with the key it made under the first JWT_SECRET.
    await expect(last.get(IdTokenKeys).sign({ sub: 'probe' }, 60)).resolves.toEqual(expect.any(String));
  });

  it('a ring without the key that sealed the app opens nothing: rotate-data-key says so and fails', async () => {
    const db = testDataSource((await fileDatabase()).url);
    await db.initialize();
    try {
      const [row] = await db.query(`SELECT secret_ciphertext FROM totp_authenticators WHERE user_id = $1`, [user.id]);
      expect(row.secret_ciphertext).toMatch(/^v1\./);
    } finally {
      await db.destroy();
    }
    const lost = await cli(['rotate-data-key'], { JWT_SECRET: s3, DATA_KEYS: secret() });
    expect(lost.code).toBe(1);
    expect(lost.output).toMatch(/authenticator apps: 0 re-sealed, 0 already current, 1 unreadable/);
    expect(lost.output).toMatch(/ID-token keys: +0 re-sealed, 0 already current, [1-9]\d* unreadable/);
    expect(lost.output).toMatch(/upstream secrets: +0 re-sealed, 0 already current, 1 unreadable/);
    expect(lost.output).toMatch(/open under no key of the ring/);
  });
});
