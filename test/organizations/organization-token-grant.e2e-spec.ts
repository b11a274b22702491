import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { randomUUID } from 'node:crypto';
import request from 'supertest';
import { decodeJwt, me, refresh, registerUser } from '../support/auth-factory.js';
import { useTestApp } from '../support/fixture.js';

const APP = { id: 'orders', secret: 'orders-secret-0123456789-abcdefghijkl' };
const basic = `Basic ${Buffer.from(`${APP.id}:${APP.secret}`).toString('base64')}`;

describe('organization tokens at the token endpoint and at introspection', () => {
  const fixture = useTestApp({ env: { SERVICE_CLIENTS: `${APP.id}:${APP.secret}` } });
  let app: NestFastifyApplication;
  beforeAll(() => void (app = fixture.app));

  const token = (form: string) =>
    request(app.getHttpServer()).post('/api/auth/token').type('form').set('authorization', basic).send(form);

  async function ownerOfNewOrganization() {
    const user = await registerUser(app);
    const res = await request(app.getHttpServer())
      .post('/api/organizations')
      .set('authorization', `Bearer ${user.tokens.access_token}`)
      .send({ slug: `grant-${randomUUID().slice(0, 8)}`, name: 'Grant' });
    expect(res.status).toBe(201);
    return { user, organizationId: res.body.data.id as string };
  }

  it('grant_type=refresh_token with organization_id: that organization’s access token, of the same session', async () => {
    const { user, organizationId } = await ownerOfNewOrganization();
    const res = await token(
      `grant_type=refresh_token&refresh_token=${user.tokens.refresh_token}&organization_id=${organizationId}`,
    );
    expect(res.status).toBe(200);
    const claims = decodeJwt(res.body.access_token).payload;
    expect(claims.org_id).toBe(organizationId);
    expect(claims.sid).toBe(decodeJwt(user.tokens.access_token).payload.sid);
    const who = await me(app, res.body.access_token);
    expect(who.body.data.organization.id).toBe(organizationId);
    // The refresh token it returned still rotates into an ordinary token.
    const next = await refresh(app, res.body.refresh_token);
    expect(decodeJwt(next.body.data.access_token).payload.org_id).toBeUndefined();
  });

  it('an organization the user does not belong to is refused, and the refresh token is not used up', async () => {
    const { organizationId } = await ownerOfNewOrganization();
    const stranger = await registerUser(app);
    const refused = await token(
      `grant_type=refresh_token&refresh_token=${stranger.tokens.refresh_token}&organization_id=${organizationId}`,
    );
    expect(refused.status).toBe(400);
    expect(refused.body.error).toBe('invalid_request');
    expect((await refresh(app, stranger.tokens.refresh_token)).status).toBe(200);
  });

  it('introspection answers org_id and only the organization’s permissions; none once the member is removed', async () => {
    const { user, organizationId } = await ownerOfNewOrganization();
    const orgToken = (
      await request(app.getHttpServer())
        .post('/api/auth/organization-token')
        .set('authorization', `Bearer ${user.tokens.access_token}`)
        .send({ organization_id: organizationId })
    ).body.data.access_token as string;
    const introspect = () =>
      request(app.getHttpServer()).post('/api/auth/introspect').set('authorization', basic).send({ token: orgToken });
    const live = await introspect();
    expect(live.body).toMatchObject({ active: true, org_id: organizationId });
    expect(live.body.permissions).toContain('members.edit');
    expect(live.body.permissions).not.toContain('contents.view');
    await request(app.getHttpServer())
      .delete(`/api/organizations/${organizationId}`)
      .set('authorization', `Bearer ${user.tokens.access_token}`);
    expect((await introspect()).body).toEqual({ active: false });
  });
});
