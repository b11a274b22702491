import { Controller, Get } from '@nestjs/common';
import { JwtService } from '@nestjs/jwt';
import { FastifyAdapter, type NestFastifyApplication } from '@nestjs/platform-fastify';
import { Test } from '@nestjs/testing';
import { randomUUID } from 'node:crypto';
import request from 'supertest';
import { AuthGuardModule } from './auth-guard.module.js';
import type { AuthUser } from './auth-user.js';
import type { PrincipalRecord } from './auth-guard.options.js';
import { CurrentUser } from './current-user.decorator.js';
import { hasSecondFactor, isFresh, RequireFreshAuth, RequireSecondFactor } from './fresh-auth.decorator.js';
import { principalFromIntrospection } from './principal-source.js';

const SECRET = 'fresh-auth-spec-secret-0123456789-abcdefghijkl';

@Controller()
class StepUpController {
  @Get('me')
  me(@CurrentUser() user: AuthUser) {
    return { authTime: user.authTime ?? null, amr: user.amr };
  }

  @RequireFreshAuth()
  @Get('default-age')
  defaultAge() {
    return { ok: true };
  }

  @RequireFreshAuth(30)
  @Get('thirty-seconds')
  thirtySeconds() {
    return { ok: true };
  }

  @RequireSecondFactor()
  @Get('second-factor')
  secondFactor() {
    return { ok: true };
  }
}

describe('@RequireFreshAuth and @RequireSecondFactor', () => {
  let app: NestFastifyApplication;
  const people = new Map<string, PrincipalRecord>();
  const ISSUER = 'https://auth.example.com';
  const jwt = new JwtService({ secret: SECRET, signOptions: { header: { alg: 'HS256', typ: 'at+jwt' } } });

  beforeAll(async () => {
    const moduleRef = await Test.createTestingModule({
      imports: [
        AuthGuardModule.forRoot({
          secret: SECRET,
          issuer: ISSUER,
          reauthMaxAgeSeconds: 120,
          permissionsFrom: { query: async ({ userId }) => people.get(userId) ?? null },
        }),
      ],
      controllers: [StepUpController],
    }).compile();
    app = moduleRef.createNestApplication<NestFastifyApplication>(new FastifyAdapter(), { logger: false });
    await app.init();
    await app.getHttpAdapter().getInstance().ready();
  });

  afterAll(async () => {
    await app?.close();
  });

  /** A token whose holder proved presence `age` seconds ago, with `amr`. */
  function caller(age: number | undefined, amr: string[] | undefined): Promise<string> {
    const id = randomUUID();
    people.set(id, { id, name: 'P', email: `${id}@example.com`, roles: [], permissions: [] });
    const claims: Record<string, unknown> = { sub: id, sid: randomUUID(), token_type: 'access', jti: randomUUID() };
    if (age !== undefined) claims.auth_time = Math.floor(Date.now() / 1000) - age;
    if (amr !== undefined) claims.amr = amr;
    return jwt.signAsync(claims, { expiresIn: 60, issuer: ISSUER, audience: ISSUER });
  }

  const get = async (path: string, token: Promise<string>) =>
    request(app.getHttpServer())
      .get(path)
      .set('authorization', `Bearer ${await token}`);

  it('hands the handler authTime and amr', async () => {
    const res = await get('/me', caller(5, ['pwd', 'otp', 'mfa']));
    expect(res.body).toEqual({ authTime: expect.any(Number), amr: ['pwd', 'otp', 'mfa'] });
    expect((await get('/me', caller(undefined, undefined))).body).toEqual({ authTime: null, amr: [] });
  });

  it('refuses a proof older than the module default with 403 REAUTHENTICATION_REQUIRED', async () => {
    expect((await get('/default-age', caller(100, ['pwd']))).status).toBe(200);
    const res = await get('/default-age', caller(130, ['pwd']));
    expect(res.status).toBe(403);
    expect(res.body).toEqual({
      success: false,
      error: { code: 'REAUTHENTICATION_REQUIRED', message: expect.any(String) },
    });
    expect((await get('/default-age', caller(undefined, ['pwd']))).status).toBe(403);
  });

  it("uses the decorator's own age over the default", async () => {
    expect((await get('/thirty-seconds', caller(10, ['pwd']))).status).toBe(200);
    expect((await get('/thirty-seconds', caller(60, ['pwd']))).status).toBe(403);
  });

  it('refuses one factor with 403 SECOND_FACTOR_REQUIRED', async () => {
    for (const amr of [
      ['pwd', 'otp', 'mfa'],
      ['pwd', 'sms'],
      ['sms', 'otp', 'mfa'],
      ['pwd', 'hwk'],
    ]) {
      expect((await get('/second-factor', caller(5, amr))).status).toBe(200);
    }
    for (const amr of [['pwd'], ['sms'], ['otp'], [], undefined]) {
      const res = await get('/second-factor', caller(5, amr));
      expect(res.status).toBe(403);
      expect(res.body.error.code).toBe('SECOND_FACTOR_REQUIRED');
    }
  });
});

describe('the step-up helpers', () => {
  it('judge freshness by auth_time in seconds', () => {
    const now = 1_700_000_000_000;
    expect(isFresh({ authTime: 1_700_000_000 - 300 }, 300, now)).toBe(true);
    expect(isFresh({ authTime: 1_700_000_000 - 301 }, 300, now)).toBe(false);
    expect(isFresh({ authTime: undefined }, 300, now)).toBe(false);
  });

  it('count a second factor only beside a first', () => {
    expect(hasSecondFactor(['mfa'])).toBe(true);
    expect(hasSecondFactor(['pwd', 'otp'])).toBe(true);
    expect(hasSecondFactor(['otp'])).toBe(false);
    expect(hasSecondFactor(['pwd', 'pwd'])).toBe(false);
  });

  it('read auth_time and amr from an introspection answer', () => {
    const record = principalFromIntrospection({
      active: true,
      sub: 'u',
      sid: 's',
      email: 'e@example.com',
      roles: [],
      permissions: [],
      auth_time: 1_700_000_000,
      amr: ['pwd', 'otp', 'mfa'],
    });
    expect(record).toMatchObject({ authTime: 1_700_000_000, amr: ['pwd', 'otp', 'mfa'] });
  });
});
