import { Controller, Get, Injectable, Module } from '@nestjs/common';
import { JwtService } from '@nestjs/jwt';
import { FastifyAdapter, type NestFastifyApplication } from '@nestjs/platform-fastify';
import { Test } from '@nestjs/testing';
import { randomUUID } from 'node:crypto';
import request from 'supertest';
import { CurrentUser } from './current-user.decorator.js';
import { Public } from './public.decorator.js';
import type { AuthUser } from './auth-user.js';
import { RequireAnyPermission, RequirePermissions } from './permissions.decorator.js';
import { AuthGuardModule } from './auth-guard.module.js';
import type { PrincipalRecord } from './auth-guard.options.js';

const SECRET = 'module-spec-secret-0123456789-abcdefghijkl';
/** Every AuthUser the `/seen` route was handed, in order. */
const seen: AuthUser[] = [];

@Controller()
class ProbeController {
  @Public()
  @Get('open')
  open() {
    return { ok: true };
  }

  @Get('whoami')
  whoami(@CurrentUser() user: AuthUser) {
    return { id: user.id, kind: user.kind, session: user.sessionId, admin: user.hasRole('admin') };
  }

  @Get('seen')
  seenBy(@CurrentUser() user: AuthUser) {
    seen.push(user);
    return { ok: true };
  }

  @RequirePermissions('reports.view', 'reports.export')
  @Get('export')
  exportReports() {
    return { ok: true };
  }

  @RequireAnyPermission('reports.view', 'reports.export')
  @Get('either')
  either() {
    return { ok: true };
  }

  @Public()
  @RequirePermissions('reports.view')
  @Get('public-but-guarded')
  publicButGuarded() {
    return { ok: true };
  }
}

/** Stands for the importing service's own configuration provider. */
@Injectable()
class ConsumerConfig {
  readonly secret = SECRET;
  readonly people = new Map<string, PrincipalRecord>();
}

@Module({ providers: [ConsumerConfig], exports: [ConsumerConfig] })
class ConsumerConfigModule {}

describe('AuthGuardModule.forRootAsync in a Nest application (guard behaviour)', () => {
  let app: NestFastifyApplication;
  let people: Map<string, PrincipalRecord>;
  const jwt = new JwtService({ secret: SECRET, signOptions: { header: { alg: 'HS256', typ: 'at+jwt' } } });

  beforeAll(async () => {
    const moduleRef = await Test.createTestingModule({
      imports: [
        AuthGuardModule.forRootAsync({
          imports: [ConsumerConfigModule],
          inject: [ConsumerConfig],
          useFactory: (config: ConsumerConfig) => ({
            secret: config.secret,
            issuer: 'https://auth.example.com',
            permissionsFrom: { query: async ({ userId }) => config.people.get(userId) ?? null },
          }),
        }),
      ],
      controllers: [ProbeController],
    }).compile();
    people = moduleRef.get(ConsumerConfig).people;
    app = moduleRef.createNestApplication<NestFastifyApplication>(new FastifyAdapter(), { logger: false });
    await app.init();
    await app.getHttpAdapter().getInstance().ready();
  });

  afterAll(async () => {
    await app?.close();
  });

  function person(permissions: string[], roles = ['user']): { token: Promise<string>; id: string; sid: string } {
    const id = randomUUID();
    const sid = randomUUID();
    people.set(id, { id, name: 'P', email: `${id}@example.com`, roles, permissions });
    return {
      id,
      sid,
      token: jwt.signAsync(
        { sub: id, sid, email: `${id}@example.com`, token_type: 'access', jti: randomUUID() },
        { expiresIn: 60, issuer: 'https://auth.example.com', audience: 'https://auth.example.com' },
      ),
    };
  }

  const get = async (path: string, token?: Promise<string>) => {
    const req = request(app.getHttpServer()).get(path);
    return token ? req.set('authorization', `Bearer ${await token}`) : req;
  };

  it('hands the handler the AuthUser of the token', async () => {
    const caller = person([], ['admin']);
    const res = await get('/whoami', caller.token);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ id: caller.id, kind: 'person', session: caller.sid, admin: true });
  });

  it("tells a service client's own token (client_id = sub) from a person's", async () => {
    people.set('billing', { id: 'billing', name: 'billing', email: '', roles: [], permissions: [] });
    const sid = randomUUID();
    const token = jwt.signAsync(
      { sub: 'billing', client_id: 'billing', sid, token_type: 'access', jti: randomUUID() },
      { expiresIn: 60, issuer: 'https://auth.example.com', audience: 'https://auth.example.com' },
    );
    expect((await get('/whoami', token)).body).toEqual({ id: 'billing', kind: 'service', session: sid, admin: false });
  });

  it('asks the source on every request, so a token verified before is refused once its caller is gone, and a changed role applies at once', async () => {
    const caller = person(['reports.view', 'reports.export']);
    expect((await get('/export', caller.token)).status).toBe(200);
    people.set(caller.id, { ...people.get(caller.id)!, permissions: ['reports.view'] });
    expect((await get('/export', caller.token)).status).toBe(403);
    people.delete(caller.id);
    expect((await get('/whoami', caller.token)).status).toBe(401);
  });

  it('hands each request of a token the same frozen AuthUser while the source answers the same record', async () => {
    const caller = person(['reports.view']);
    seen.length = 0;
    await get('/seen', caller.token);
    await get('/seen', caller.token);
    expect(seen[1]).toBe(seen[0]);
    expect(Object.isFrozen(seen[0])).toBe(true);
    expect(() => (seen[0].permissions as string[]).push('reports.export')).toThrow(TypeError);
    people.set(caller.id, { ...people.get(caller.id)!, roles: ['editor'] });
    await get('/seen', caller.token);
    expect(seen[2]).not.toBe(seen[0]);
    expect(seen[2].roles).toEqual(['editor']);
  });

  it('denies by default, with the contract body, and opens @Public() routes', async () => {
    const res = await get('/whoami');
    expect(res.status).toBe(401);
    expect(res.body).toEqual({ success: false, error: { code: 'UNAUTHENTICATED', message: expect.any(String) } });
    expect((await get('/open')).status).toBe(200);
  });

  it('refuses a valid token whose user the source does not know (revoked session, deleted user)', async () => {
    const caller = person(['reports.view']);
    people.delete(caller.id);
    expect((await get('/whoami', caller.token)).status).toBe(401);
  });

  it('requires every permission of @RequirePermissions and names the missing ones', async () => {
    expect((await get('/export', person(['reports.view', 'reports.export']).token)).status).toBe(200);
    const res = await get('/export', person(['reports.view']).token);
    expect(res.status).toBe(403);
    expect(res.body).toEqual({
      success: false,
      error: {
        code: 'FORBIDDEN',
        message: 'Missing permission: reports.export.',
        details: [{ permission: 'reports.export' }],
      },
    });
  });

  it('requires one permission of @RequireAnyPermission', async () => {
    expect((await get('/either', person(['reports.export']).token)).status).toBe(200);
    const res = await get('/either', person([]).token);
    expect(res.status).toBe(403);
    expect(res.body.error.message).toBe('Missing permission: one of reports.view, reports.export is required.');
  });

  it('lets a permission requirement outweigh @Public()', async () => {
    expect((await get('/public-but-guarded')).status).toBe(401);
    expect((await get('/public-but-guarded', person(['reports.view']).token)).status).toBe(200);
  });
});
