import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import request from 'supertest';
import type { DataSource } from 'typeorm';
import { registerUser, registrationBody, TEST_PASSWORD } from '../support/auth-factory.js';
import { SMS_LOGINS, useTestApp } from '../support/fixture.js';
import { callerWithPermissions } from '../support/rbac-factory.js';

/** Sixteen characters after normalisation, the `+` included: one more than the specification allows. */
const TOO_LONG = '+491511234567890';
/** Fifteen: the longest the specification allows. */
const LONGEST = '+49151123456789';

/** Mobiles are 8 to 15 characters after normalisation, the `+` included, wherever a mobile is taken. */
describe('a mobile of 16 characters', () => {
  const fixture = useTestApp({ sms: true, env: SMS_LOGINS });
  let app: NestFastifyApplication;
  let db: DataSource;
  beforeAll(() => void ({ app, db } = fixture));

  function expectMobileRefused(res: request.Response): void {
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('VALIDATION_FAILED');
    expect(res.body.error.details.map((detail: { field: string }) => detail.field)).toContain('mobile');
  }

  const server = () => app.getHttpServer();

  it('is refused at send-otp, verify-otp and login', async () => {
    for (const written of [TOO_LONG, '0049 151 1234 567890']) {
      expectMobileRefused(await request(server()).post('/api/auth/send-otp').send({ mobile: written }));
    }
    expectMobileRefused(
      await request(server()).post('/api/auth/verify-otp').send({ mobile: TOO_LONG, code: '123456' }),
    );
    expectMobileRefused(await request(server()).post('/api/auth/login').send({ mobile: TOO_LONG, password: 'x' }));
  });

  it('is refused at register, and fifteen characters are accepted', async () => {
    expectMobileRefused(
      await request(server())
        .post('/api/auth/register')
        .send(registrationBody({ mobile: TOO_LONG })),
    );
    const res = await request(server())
      .post('/api/auth/register')
      .send(registrationBody({ mobile: LONGEST, password: TEST_PASSWORD }));
    expect(res.status).toBe(201);
    expect(res.body.data.user.mobile).toBe(LONGEST);
  });

  it('is refused by the account holder’s mobile change and by the administration of users', async () => {
    const user = await registerUser(app);
    expectMobileRefused(
      await request(server())
        .post('/api/account/mobile')
        .set('authorization', `Bearer ${user.tokens.access_token}`)
        .send({ mobile: TOO_LONG }),
    );
    const admin = await callerWithPermissions(app, db, ['users.view', 'users.create', 'users.edit']);
    expectMobileRefused(
      await request(server())
        .post('/api/admin/users')
        .set('authorization', `Bearer ${admin.token}`)
        .send(registrationBody({ mobile: TOO_LONG })),
    );
    expectMobileRefused(
      await request(server())
        .put(`/api/admin/users/${user.id}`)
        .set('authorization', `Bearer ${admin.token}`)
        .send({ mobile: TOO_LONG }),
    );
  });
});
