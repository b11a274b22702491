import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { TOTP, URI } from 'otpauth';
import { startService, type RunningService } from '../support/service-process.js';

const STEP_MS = 30_000;

/** JSON to and from the started service, as any client would call it. */
async function call(
  base: string,
  method: string,
  route: string,
  body?: object,
  token?: string,
): Promise<{ status: number; body: { data?: Record<string, unknown> } & Record<string, unknown> }> {
  const response = await fetch(`${base}${route}`, {
    method,
    headers: {
      ...(body ? { 'content-type': 'application/json' } : {}),
      ...(token ? { authorization: `Bearer ${token}` } : {}),
    },
    body: body ? JSON.stringify(body) : undefined,
  });
  return { status: response.status, body: (await response.json()) as never };
}

/** Waits out the last seconds of a time step, so the codes of this step and the next stay valid. */
async function awayFromStepEdge(): Promise<void> {
  const intoStep = Date.now() % STEP_MS;
  if (intoStep > STEP_MS - 8_000) await new Promise((resolve) => setTimeout(resolve, STEP_MS - intoStep + 500));
}

describe('the default configuration (embedded database, no JWT_SECRET) across a restart', () => {
  let cwd: string;
  let service: RunningService | undefined;
  const env = () => ({
    DATA_DIR: path.join(cwd, 'data'),
    APP_ENV: 'development',
    ARGON2_MEMORY_KIB: '1024',
    ARGON2_ITERATIONS: '1',
  });

  beforeAll(() => {
    cwd = mkdtempSync(path.join(tmpdir(), 'auth-restart-'));
  });
  afterAll(async () => {
    await service?.stop();
    rmSync(cwd, { recursive: true, force: true });
  });

  it('keeps the tokens, the authenticator app and the recovery codes enrolled before it', async () => {
    service = await startService(cwd, env(), 120_000);
    const secretFile = path.join(cwd, 'data', 'jwt-secret');
    expect(service.output()).toContain(`JWT_SECRET is not set: generated one into ${secretFile} (mode 0600)`);
    expect(statSync(secretFile).mode & 0o777).toBe(0o600);
    const password = /admin\s+admin@example\.com\s+password: (\S+)/.exec(service.output())?.[1];
    expect(password).toBeDefined();

    const signedIn = await call(service.baseUrl, 'POST', '/api/auth/login', { email: 'admin@example.com', password });
    expect(signedIn.status).toBe(200);
    const { access_token: accessToken, refresh_token: refreshToken } = signedIn.body.data as Record<string, string>;
    await awayFromStepEdge();
    const started = await call(service.baseUrl, 'POST', '/api/account/totp', {}, accessToken);
    expect(started.status).toBe(200);
    const app = URI.parse(String(started.body.data!.otpauth_uri)) as TOTP;
    const confirmed = await call(
      service.baseUrl,
      'POST',
      '/api/account/totp/confirm',
      { code: app.generate({ timestamp: Date.now() - STEP_MS }) },
      accessToken,
    );
    expect(confirmed.status).toBe(200);
    const recoveryCodes = confirmed.body.data!.recovery_codes as string[];
    expect(recoveryCodes).toHaveLength(10);
    expect(await service.stop()).toBeDefined();

    service = await startService(cwd, env(), 120_000);
    expect(service.output()).toContain(`JWT_SECRET is not set: using the one kept in ${secretFile}.`);
    const base = service.baseUrl;

    // The token issued before the restart still names its holder, and its refresh token still rotates.
    const me = await call(base, 'GET', '/api/auth/me', undefined, accessToken);
    expect(me.status).toBe(200);
    expect((me.body.data as { email: string }).email).toBe('admin@example.com');
    expect((await call(base, 'POST', '/api/auth/refresh', { refresh_token: refreshToken })).status).toBe(200);

    // The authenticator app enrolled before the restart passes the second factor after it.
    const challenge = await call(base, 'POST', '/api/auth/login', { email: 'admin@example.com', password });
    expect(challenge.status).toBe(200);
    expect(challenge.body.data).toMatchObject({ requires_otp: true, methods: expect.arrayContaining(['totp']) });
    const byApp = await call(base, 'POST', '/api/auth/otp/verify-2fa', {
      temp_token: challenge.body.data!.temp_token,
      method: 'totp',
      code: app.generate(),
    });
    expect(byApp.status).toBe(200);
    expect(byApp.body.data).toHaveProperty('access_token');

    // So does a recovery code.
    const again = await call(base, 'POST', '/api/auth/login', { email: 'admin@example.com', password });
    const byRecovery = await call(base, 'POST', '/api/auth/otp/verify-2fa', {
      temp_token: again.body.data!.temp_token,
      method: 'recovery',
      code: recoveryCodes[0],
    });
    expect(byRecovery.status).toBe(200);
    expect(byRecovery.body.data).toHaveProperty('access_token');
  });
});
