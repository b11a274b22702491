import { Controller, Get } from '@nestjs/common';
import { JwtService } from '@nestjs/jwt';
import { FastifyAdapter, type NestFastifyApplication } from '@nestjs/platform-fastify';
import { Test } from '@nestjs/testing';
import { randomUUID } from 'node:crypto';
import request from 'supertest';
import { AuthGuardModule } from './auth-guard.module.js';
import type { AuthGuardModuleOptions, PrincipalRecord } from './auth-guard.options.js';

const SECRET = 'protected-resource-spec-secret-0123456789';
const ISSUER = 'https://auth.example.com';
const people = new Map<string, PrincipalRecord>();
const jwt = new JwtService({ secret: SECRET, signOptions: { header: { alg: 'HS256', typ: 'at+jwt' } } });

@Controller()
class ReportsController {
  @Get('reports')
  reports() {
    return { ok: true };
  }
}

async function appWith(options: Partial<AuthGuardModuleOptions>, async = false): Promise<NestFastifyApplication> {
  const full: AuthGuardModuleOptions = {
    secret: SECRET,
    issuer: ISSUER,
    permissionsFrom: { query: async ({ userId }) => people.get(userId) ?? null },
    ...options,
  };
  const moduleRef = await Test.createTestingModule({
    imports: [async ? AuthGuardModule.forRootAsync({ useFactory: () => full }) : AuthGuardModule.forRoot(full)],
    controllers: [ReportsController],
  }).compile();
  const app = moduleRef.createNestApplication<NestFastifyApplication>(new FastifyAdapter(), { logger: false });
  await app.init();
  await app.getHttpAdapter().getInstance().ready();
  return app;
}

function tokenFor(audience: string): Promise<string> {
  const id = randomUUID();
  people.set(id, { id, name: 'P', email: `${id}@example.com`, roles: [], permissions: [] });
  return jwt.signAsync(
    { sub: id, sid: randomUUID(), token_type: 'access', jti: randomUUID() },
    { expiresIn: 60, issuer: ISSUER, audience },
  );
}

describe('protected resource metadata (RFC 9728) from the guard package', () => {
  const apps: NestFastifyApplication[] = [];
  afterAll(async () => {
    await Promise.all(apps.map((app) => app.close()));
  });
  const start = async (options: Partial<AuthGuardModuleOptions>, async = false) => {
    const app = await appWith(options, async);
    apps.push(app);
    return app;
  };

  it('serves the metadata naming the auth service, without a token', async () => {
    const app = await start({ protectedResource: { resource: 'https://api.example.com', scopes: ['reports'] } });
    const res = await request(app.getHttpServer()).get('/.well-known/oauth-protected-resource');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      resource: 'https://api.example.com',
      authorization_servers: ['https://auth.example.com'],
      scopes_supported: ['reports'],
      bearer_methods_supported: ['header'],
    });
  });

  it('points a 401 at the metadata, and says invalid_token when a token was sent', async () => {
    const app = await start({ protectedResource: { resource: 'https://api.example.com' } });
    const bare = await request(app.getHttpServer()).get('/reports');
    expect(bare.status).toBe(401);
    expect(bare.headers['www-authenticate']).toBe(
      'Bearer resource_metadata="https://api.example.com/.well-known/oauth-protected-resource"',
    );
    const forged = await request(app.getHttpServer()).get('/reports').set('authorization', 'Bearer not.a.token');
    expect(forged.status).toBe(401);
    expect(forged.headers['www-authenticate']).toBe(
      'Bearer resource_metadata="https://api.example.com/.well-known/oauth-protected-resource", error="invalid_token"',
    );
  });

  it("publishes a resource with a path under the well-known path followed by the resource's path (RFC 9728 §3.1)", async () => {
    const app = await start({ protectedResource: { resource: 'https://api.example.com/mcp' } });
    const res = await request(app.getHttpServer()).get('/.well-known/oauth-protected-resource/mcp');
    expect(res.status).toBe(200);
    expect(res.body.resource).toBe('https://api.example.com/mcp');
    expect((await request(app.getHttpServer()).get('/.well-known/oauth-protected-resource')).status).toBe(404);
    expect((await request(app.getHttpServer()).get('/.well-known/oauth-protected-resource/other')).status).toBe(404);
    expect((await request(app.getHttpServer()).get('/reports')).headers['www-authenticate']).toBe(
      'Bearer resource_metadata="https://api.example.com/.well-known/oauth-protected-resource/mcp"',
    );
  });

  it('accepts a token for the resource beside one for the issuer, and refuses one for another audience', async () => {
    const app = await start({ protectedResource: { resource: 'https://api.example.com' } });
    const call = async (audience: string) =>
      (
        await request(app.getHttpServer())
          .get('/reports')
          .set('authorization', `Bearer ${await tokenFor(audience)}`)
      ).status;
    expect(await call('https://api.example.com')).toBe(200);
    expect(await call(ISSUER)).toBe(200);
    expect(await call('https://other.example.com')).toBe(401);
  });

  it('serves nothing and sends no challenge without the option', async () => {
    const app = await start({});
    expect((await request(app.getHttpServer()).get('/.well-known/oauth-protected-resource')).status).toBe(404);
    const res = await request(app.getHttpServer()).get('/reports');
    expect(res.status).toBe(401);
    expect(res.headers['www-authenticate']).toBeUndefined();
  });

  it('works through forRootAsync, the options coming from a factory', async () => {
    const app = await start({ protectedResource: { resource: 'http://127.0.0.1:4000' } }, true);
    const res = await request(app.getHttpServer()).get('/.well-known/oauth-protected-resource');
    expect(res.status).toBe(200);
    expect(res.body.authorization_servers).toEqual(['https://auth.example.com']);
  });

  it.each([
    'http://api.example.com',
    'https://api.example.com/#x',
    'https://u:p@api.example.com',
    'api.example.com',
    'https://api.example.com/?a=1',
  ])('refuses to start with the resource %s', async (resource) => {
    await expect(appWith({ protectedResource: { resource } })).rejects.toThrow(/protectedResource\.resource/);
  });
});
