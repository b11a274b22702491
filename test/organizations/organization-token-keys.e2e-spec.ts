import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import request from 'supertest';
import { decodeJwt, me, registerUser } from '../support/auth-factory.js';
import { createTestApp } from '../support/test-app.js';
import { cliOnTestDatabase } from '../support/cli-runner.js';

const APP = { id: 'orders', secret: 'orders-secret-0123456789-abcdefghijkl' };
const basic = `Basic ${Buffer.from(`${APP.id}:${APP.secret}`).toString('base64')}`;

const cli = cliOnTestDatabase;

async function withApp<T>(env: Record<string, string>, work: (app: NestFastifyApplication) => Promise<T>): Promise<T> {
  const app = await createTestApp({ env });
  try {
    return await work(app);
  } finally {
    await app.close();
  }
}

describe('organization tokens across a restart and a signing-key rotation', () => {
  let dataDir: string;
  let env: Record<string, string>;

  beforeAll(async () => {
    dataDir = await mkdtemp(path.join(os.tmpdir(), 'auth-org-keys-'));
    env = { JWT_ALGORITHM: 'ES256', DATA_DIR: dataDir, SERVICE_CLIENTS: `${APP.id}:${APP.secret}` };
  });

  afterAll(async () => {
    await rm(dataDir, { recursive: true, force: true });
  });

  it('an organization token issued before a restart works after it; after rotate-keys the old key’s organization token still works, and a refresh with organization_id gives one signed by the new key', async () => {
    const issued = await withApp(env, async (app) => {
      const user = await registerUser(app);
      const created = await request(app.getHttpServer())
        .post('/api/organizations')
        .set('authorization', `Bearer ${user.tokens.access_token}`)
        .send({ slug: `keys-${randomUUID().slice(0, 8)}`, name: 'Keys' });
      expect(created.status).toBe(201);
      const organizationId = created.body.data.id as string;
      const res = await request(app.getHttpServer())
        .post('/api/auth/organization-token')
        .set('authorization', `Bearer ${user.tokens.access_token}`)
        .send({ organization_id: organizationId });
      expect(res.status).toBe(200);
      return {
        organizationId,
        organizationToken: res.body.data.access_token as string,
        refreshToken: user.tokens.refresh_token,
      };
    });
    const oldKid = decodeJwt(issued.organizationToken).header.kid;

    // A restart: the same key, the same session, the same membership.
    await withApp(env, async (app) => {
      const who = await me(app, issued.organizationToken);
      expect(who.status).toBe(200);
      expect(who.body.data.organization).toMatchObject({ id: issued.organizationId, roles: ['owner'] });
      expect(who.body.data.permissions).toContain('members.edit');
    });

    const rotated = await cli(['rotate-keys'], env);
    expect(rotated.code).toBe(0);
    expect(rotated.output).toMatch(/New ES256 signing key \S+ written to/);

    await withApp(env, async (app) => {
      // Signed by the previous key: valid for its lifetime, as an ordinary token is.
      const who = await me(app, issued.organizationToken);
      expect(who.status).toBe(200);
      expect(who.body.data.organization.id).toBe(issued.organizationId);
      expect(who.body.data.permissions).toContain('members.edit');

      const refreshed = await request(app.getHttpServer())
        .post('/api/auth/token')
        .type('form')
        .set('authorization', basic)
        .send(`grant_type=refresh_token&refresh_token=${issued.refreshToken}&organization_id=${issued.organizationId}`);
      expect(refreshed.status).toBe(200);
      const token = refreshed.body.access_token as string;
      const { header, payload } = decodeJwt(token);
      expect(payload.org_id).toBe(issued.organizationId);
      expect(header.kid).not.toBe(oldKid);
      const after = await me(app, token);
      expect(after.status).toBe(200);
      expect(after.body.data.organization.id).toBe(issued.organizationId);
    });
  });
});
