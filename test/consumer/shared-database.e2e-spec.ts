import { Controller, Get } from '@nestjs/common';
import { FastifyAdapter, type NestFastifyApplication } from '@nestjs/platform-fastify';
import { Test } from '@nestjs/testing';
import request from 'supertest';
import type { DataSource } from 'typeorm';
import {
  AuthGuardModule,
  AuthUser,
  CurrentUser,
  Permissions,
  Public,
  RequireAnyPermission,
  RequirePermissions,
} from '@auth-rbac/nest-guard';
import { useTestApp } from '../support/fixture.js';
import { TEST_JWT_SECRET } from '../support/test-config.js';
import { grantPermissions, login, logout, registerUser, type TestUser } from './consumer-support.js';

@Controller()
class SharedDatabaseController {
  @Public()
  @Get('open')
  open() {
    return { success: true, data: {} };
  }

  @Get('me')
  me(@CurrentUser() user: AuthUser) {
    return { success: true, data: { id: user.id, roles: user.roles, canView: user.has(Permissions.ContentsView) } };
  }

  @RequirePermissions(Permissions.ContentsView)
  @Get('contents')
  contents() {
    return { success: true, data: { items: [], total: 0 } };
  }

  @RequireAnyPermission(Permissions.ContentsEdit, Permissions.ContentsDelete)
  @Get('moderation')
  moderation() {
    return { success: true, data: {} };
  }
}

describe('another Nest service guarded by this one, reading the shared database', () => {
  let auth: NestFastifyApplication;
  let authUrl: string;
  let consumer: NestFastifyApplication;
  let dataSource: DataSource;
  let permitted: TestUser;
  let other: TestUser;

  const fixture = useTestApp({ listen: true });
  beforeAll(async () => {
    ({ app: auth, db: dataSource } = fixture);
    authUrl = await auth.getUrl();

    const moduleRef = await Test.createTestingModule({
      imports: [AuthGuardModule.forRoot({ jwtSecret: TEST_JWT_SECRET, permissionsFrom: { dataSource } })],
      controllers: [SharedDatabaseController],
    }).compile();
    consumer = moduleRef.createNestApplication<NestFastifyApplication>(new FastifyAdapter(), { logger: ['error'] });
    await consumer.init();
    await consumer.getHttpAdapter().getInstance().ready();

    [permitted, other] = await Promise.all([registerUser(authUrl), registerUser(authUrl)]);
    await grantPermissions(dataSource, permitted.id, ['contents.view']);
  }, 120_000);

  afterAll(async () => {
    await consumer?.close();
  });

  const get = (path: string, token?: string) => {
    const req = request(consumer.getHttpServer()).get(path);
    return token ? req.set('authorization', `Bearer ${token}`) : req;
  };

  it('opens a contents.view route for a permitted user and hands handlers the AuthUser', async () => {
    const { accessToken } = await login(authUrl, permitted);
    expect((await get('/contents', accessToken)).status).toBe(200);
    const me = await get('/me', accessToken);
    expect(me.status).toBe(200);
    expect(me.body.data).toEqual({ id: permitted.id, roles: expect.arrayContaining(['user']), canView: true });
  });

  it('refuses a user without the permission with 403, naming it, for all-of and any-of requirements', async () => {
    const { accessToken } = await login(authUrl, other);
    const all = await get('/contents', accessToken);
    expect(all.status).toBe(403);
    expect(all.body.error).toEqual({
      code: 'FORBIDDEN',
      message: 'Missing permission: contents.view.',
      details: [{ permission: 'contents.view' }],
    });
    const any = await get('/moderation', accessToken);
    expect(any.status).toBe(403);
    expect(any.body.error.message).toBe('Missing permission: one of contents.edit, contents.delete is required.');
  });

  it('denies by default and lets @Public() routes through', async () => {
    expect((await get('/me')).status).toBe(401);
    expect((await get('/me')).body).toEqual({
      success: false,
      error: { code: 'UNAUTHENTICATED', message: expect.any(String) },
    });
    expect((await get('/open')).status).toBe(200);
  });

  it('refuses a logged-out session at once (the session check on `sid`, no cache by default)', async () => {
    const { accessToken } = await login(authUrl, permitted);
    expect((await get('/contents', accessToken)).status).toBe(200);
    expect(await logout(authUrl, accessToken)).toBe(200);
    expect((await get('/contents', accessToken)).status).toBe(401);
  });

  it('refuses to start without a secret or a source', () => {
    expect(() => AuthGuardModule.forRoot({ permissionsFrom: { dataSource } })).toThrow(/secret/);
    expect(() => AuthGuardModule.forRoot({ secret: TEST_JWT_SECRET } as never)).toThrow(/permissionsFrom/);
  });
});
