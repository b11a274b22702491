import { Controller, Get, Param } from '@nestjs/common';
import { JwtService } from '@nestjs/jwt';
import { FastifyAdapter, type NestFastifyApplication } from '@nestjs/platform-fastify';
import { Test } from '@nestjs/testing';
import { randomUUID } from 'node:crypto';
import request from 'supertest';
import { AuthGuardModule } from './auth-guard.module.js';
import type { AuthUser } from './auth-user.js';
import type { PrincipalRecord } from './auth-guard.options.js';
import { CurrentUser } from './current-user.decorator.js';
import { OrganizationParam } from './organization.decorator.js';
import { RequirePermissions } from './permissions.decorator.js';

const SECRET = 'organization-spec-secret-0123456789-abcdefghijkl';
const ISSUER = 'https://auth.example.com';

@Controller('orgs/:orgId')
class InvoicesController {
  @OrganizationParam('orgId')
  @RequirePermissions('invoices.approve')
  @Get('invoices')
  list(@Param('orgId') orgId: string, @CurrentUser() user: AuthUser) {
    return { orgId, organizationId: user.organizationId };
  }

  @Get('me')
  me(@CurrentUser() user: AuthUser) {
    return { organizationId: user.organizationId ?? null };
  }
}

describe('@OrganizationParam and organization tokens', () => {
  let app: NestFastifyApplication;
  /** What the source answers per (user, organization): an organization token gets that organization's permissions. */
  const grants = new Map<string, string[]>();
  const jwt = new JwtService({ secret: SECRET, signOptions: { header: { alg: 'HS256', typ: 'at+jwt' } } });

  beforeAll(async () => {
    const moduleRef = await Test.createTestingModule({
      imports: [
        AuthGuardModule.forRoot({
          secret: SECRET,
          issuer: ISSUER,
          permissionsFrom: {
            query: async ({ userId, organizationId }): Promise<PrincipalRecord> => ({
              id: userId,
              name: 'P',
              email: 'p@example.com',
              roles: [],
              permissions: grants.get(`${userId}:${organizationId ?? ''}`) ?? [],
            }),
          },
        }),
      ],
      controllers: [InvoicesController],
    }).compile();
    app = moduleRef.createNestApplication<NestFastifyApplication>(new FastifyAdapter(), { logger: false });
    await app.init();
    await app.getHttpAdapter().getInstance().ready();
  });

  afterAll(async () => {
    await app?.close();
  });

  function token(userId: string, organizationId?: string): Promise<string> {
    const claims: Record<string, unknown> = { sub: userId, sid: randomUUID(), token_type: 'access', jti: randomUUID() };
    if (organizationId) claims.org_id = organizationId;
    return jwt.signAsync(claims, { expiresIn: 60, issuer: ISSUER, audience: ISSUER });
  }

  const get = async (path: string, bearer: Promise<string>) =>
    request(app.getHttpServer())
      .get(path)
      .set('authorization', `Bearer ${await bearer}`);

  it("passes a token of the route's organization holding the permission there, with AuthUser.organizationId", async () => {
    const user = randomUUID();
    const acme = randomUUID();
    grants.set(`${user}:${acme}`, ['invoices.approve']);
    const res = await get(`/orgs/${acme}/invoices`, token(user, acme));
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ orgId: acme, organizationId: acme });
  });

  it('refuses an ordinary token with 403 ORGANIZATION_REQUIRED, even when it holds the permission', async () => {
    const user = randomUUID();
    grants.set(`${user}:`, ['invoices.approve']);
    const res = await get(`/orgs/${randomUUID()}/invoices`, token(user));
    expect(res.status).toBe(403);
    expect(res.body.error.code).toBe('ORGANIZATION_REQUIRED');
  });

  it("refuses another organization's token with 403 ORGANIZATION_MISMATCH", async () => {
    const user = randomUUID();
    const globex = randomUUID();
    grants.set(`${user}:${globex}`, ['invoices.approve']);
    const res = await get(`/orgs/${randomUUID()}/invoices`, token(user, globex));
    expect(res.status).toBe(403);
    expect(res.body.error.code).toBe('ORGANIZATION_MISMATCH');
  });

  it("checks the organization's permissions: a member without it is 403 FORBIDDEN", async () => {
    const user = randomUUID();
    const acme = randomUUID();
    grants.set(`${user}:${acme}`, ['invoices.view']);
    const res = await get(`/orgs/${acme}/invoices`, token(user, acme));
    expect(res.status).toBe(403);
    expect(res.body.error.code).toBe('FORBIDDEN');
  });

  it('leaves organizationId absent for an ordinary token', async () => {
    const res = await get(`/orgs/${randomUUID()}/me`, token(randomUUID()));
    expect(res.body).toEqual({ organizationId: null });
  });
});
