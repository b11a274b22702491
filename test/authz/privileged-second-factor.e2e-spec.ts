import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import request from 'supertest';
import type { DataSource } from 'typeorm';
import { registerUser, uniqueMobile, type RegisteredUser } from '../support/auth-factory.js';
import { roleWithPermissions, grantRoles } from '../support/rbac-factory.js';
import { SmsReceiver } from '../support/sms-receiver.js';
import { SMS_LOGINS, useTestApp } from '../support/fixture.js';
import { EVERY_PERMISSION } from '../support/seeded-permissions.js';

/**
 * The administrators' rules belong to every privileged account (the admin role, or any
 * permission that changes users, roles or settings), not to the role named `admin` alone.
 */
describe('privileged accounts without the admin role (both login methods on)', () => {
  const fixture = useTestApp({ sms: true, env: SMS_LOGINS });
  let db: DataSource;
  let sms: SmsReceiver;
  let app: NestFastifyApplication;
  beforeAll(() => void ({ db, sms, app } = fixture));

  const server = () => app.getHttpServer();

  async function accountWith(permissions: readonly string[]): Promise<RegisteredUser & { mobile: string }> {
    const mobile = uniqueMobile();
    const user = await registerUser(app, { mobile });
    if (permissions.length > 0)
      await grantRoles(db, user.id, [(await roleWithPermissions(db, permissions, 'operators')).id]);
    return { ...user, mobile };
  }

  it('asks every permission holder outside the admin role for the second factor', async () => {
    const user = await accountWith(EVERY_PERMISSION);
    for (const body of [
      { email: user.email, password: user.password },
      { mobile: user.mobile, password: user.password },
    ]) {
      const res = await request(server()).post('/api/auth/login').send(body);
      expect(res.status).toBe(200);
      expect(res.body.data.requires_otp).toBe(true);
      expect(res.body.data.access_token).toBeUndefined();
    }
  });

  it.each([
    'users.create',
    'users.edit',
    'users.delete',
    'roles.create',
    'roles.edit',
    'roles.delete',
    'settings.edit',
    'clients.create',
    'clients.edit',
    'clients.delete',
    'organizations.edit',
    'organizations.delete',
  ])('counts %s alone as privileged at login', async (permission) => {
    const user = await accountWith([permission]);
    const res = await request(server()).post('/api/auth/login').send({ email: user.email, password: user.password });
    expect(res.status).toBe(200);
    expect(res.body.data.requires_otp).toBe(true);
  });

  it('signs in an account of view permissions only with its password', async () => {
    const user = await accountWith(['users.view', 'roles.view', 'contents.edit', 'settings.view', 'audit.view']);
    const res = await request(server()).post('/api/auth/login').send({ email: user.email, password: user.password });
    expect(res.status).toBe(200);
    expect(res.body.data.access_token).toEqual(expect.any(String));
  });

  it('refuses a privileged account a code-only sign-in with 403 LOGIN_METHOD_DISABLED', async () => {
    const user = await accountWith(EVERY_PERMISSION);
    expect((await request(server()).post('/api/auth/send-otp').send({ mobile: user.mobile })).status).toBe(200);
    const res = await request(server())
      .post('/api/auth/verify-otp')
      .send({ mobile: user.mobile, otp: await sms.codeFor(user.mobile) });
    expect(res.status).toBe(403);
    expect(res.body.error.code).toBe('LOGIN_METHOD_DISABLED');
  });

  it('still signs in an unprivileged account with a code alone', async () => {
    const user = await accountWith(['contents.view']);
    expect((await request(server()).post('/api/auth/send-otp').send({ mobile: user.mobile })).status).toBe(200);
    const res = await request(server())
      .post('/api/auth/verify-otp')
      .send({ mobile: user.mobile, otp: await sms.codeFor(user.mobile) });
    expect(res.status).toBe(200);
  });
});
