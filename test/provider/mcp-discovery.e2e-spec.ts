import { AuthGuardModule } from '@auth-rbac/nest-guard';
import { Controller, Get } from '@nestjs/common';
import { FastifyAdapter, type NestFastifyApplication } from '@nestjs/platform-fastify';
import { Test } from '@nestjs/testing';
import request from 'supertest';
import { registerUser, TEST_PASSWORD } from '../support/auth-factory.js';
import { useTestApp } from '../support/fixture.js';
import { TEST_JWT_SECRET } from '../support/test-config.js';
import { pkce, ProviderBrowser, redirectParameters } from './provider-browser.js';

const ISSUER = 'https://auth.example.test';
const RESOURCE = 'https://mcp.example.test/mcp';

@Controller()
class McpController {
  @Get('mcp')
  tools() {
    return { tools: [] };
  }
}

/**
 * The discovery path of docs/openid-provider.md ("An MCP client's discovery path"), walked as an
 * MCP client walks it: a 401 from a Nest server on the guard package names its protected resource
 * metadata (RFC 9728), which names the service, whose metadata (RFC 8414) gives the registration
 * endpoint (RFC 7591) and the authorization endpoint; the token got with `resource` opens the server.
 */
describe("an MCP client's discovery path, from a guarded server's 401 to its token", () => {
  const fixture = useTestApp({ env: { ISSUER, OIDC_DYNAMIC_REGISTRATION: 'true' } });
  let mcp: NestFastifyApplication;

  beforeAll(async () => {
    const moduleRef = await Test.createTestingModule({
      imports: [
        AuthGuardModule.forRoot({
          secret: TEST_JWT_SECRET,
          issuer: ISSUER,
          permissionsFrom: {
            query: async ({ userId }) => ({
              id: userId,
              name: 'P',
              email: 'p@example.test',
              roles: [],
              permissions: [],
            }),
          },
          protectedResource: { resource: RESOURCE, scopes: ['openid', 'email'] },
        }),
      ],
      controllers: [McpController],
    }).compile();
    mcp = moduleRef.createNestApplication<NestFastifyApplication>(new FastifyAdapter(), { logger: false });
    await mcp.init();
    await mcp.getHttpAdapter().getInstance().ready();
  });

  afterAll(async () => {
    await mcp?.close();
  });

  it('finds the service, registers, signs the person in with consent, and calls the server with the token', async () => {
    const service = fixture.app.getHttpServer();
    const refused = await request(mcp.getHttpServer()).get('/mcp');
    expect(refused.status).toBe(401);
    const challenge = /resource_metadata="([^"]+)"/.exec(refused.headers['www-authenticate'] as string);
    expect(challenge?.[1]).toBe('https://mcp.example.test/.well-known/oauth-protected-resource/mcp');

    const metadata = await request(mcp.getHttpServer()).get(new URL(challenge![1]).pathname);
    expect(metadata.body).toMatchObject({
      resource: RESOURCE,
      authorization_servers: [ISSUER],
      bearer_methods_supported: ['header'],
    });

    const server = (await request(service).get('/.well-known/oauth-authorization-server')).body;
    expect(server).toMatchObject({ issuer: ISSUER, code_challenge_methods_supported: ['S256'] });
    const path = (url: string) => new URL(url).pathname;
    const registered = await request(service)
      .post(path(server.registration_endpoint))
      .send({
        client_name: 'An MCP client',
        redirect_uris: ['http://127.0.0.1/callback'],
        token_endpoint_auth_method: 'none',
      });
    expect(registered.status).toBe(201);
    const clientId: string = registered.body.client_id;

    const user = await registerUser(fixture.app);
    const pair = pkce();
    const browser = new ProviderBrowser(fixture.app);
    const page = await browser.get(path(server.authorization_endpoint), {
      response_type: 'code',
      client_id: clientId,
      redirect_uri: 'http://127.0.0.1:50123/callback',
      scope: 'openid email',
      state: 'mcp',
      code_challenge: pair.challenge,
      code_challenge_method: 'S256',
      resource: RESOURCE,
    });
    expect(page.status).toBe(200);
    const consent = await browser.signIn(page, user.email, TEST_PASSWORD);
    expect(consent.text).toContain('An MCP client');
    const allowed = await browser.decide(consent, 'allow');
    const code = redirectParameters(allowed).get('code')!;
    const issued = await request(service).post(path(server.token_endpoint)).type('form').send({
      grant_type: 'authorization_code',
      code,
      redirect_uri: 'http://127.0.0.1:50123/callback',
      code_verifier: pair.verifier,
      client_id: clientId,
      resource: RESOURCE,
    });
    expect(issued.status).toBe(200);

    const answered = await request(mcp.getHttpServer())
      .get('/mcp')
      .set('authorization', `Bearer ${issued.body.access_token}`);
    expect(answered.status).toBe(200);
    expect(answered.body).toEqual({ tools: [] });
  });
});
