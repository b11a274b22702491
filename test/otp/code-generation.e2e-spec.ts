import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import request from 'supertest';
import { registerUser, uniqueMobile } from '../support/auth-factory.js';
import { useTestApp } from '../support/fixture.js';
import type { SmsReceiver } from '../support/sms-receiver.js';

describe.each([
  ['production', 'production'],
  ['development', 'development'],
])('codes with APP_ENV=%s', (_name, appEnv) => {
  const fixture = useTestApp({
    sms: true,
    env: { APP_ENV: appEnv, AUTH_MOBILE_OTP: 'true', OTP_RESEND_SECONDS: '0', OTP_HOURLY_CAP: '1000' },
  });
  let sms: SmsReceiver;
  let app: NestFastifyApplication;
  beforeAll(() => void ({ sms, app } = fixture));

  const send = (mobile: string) => request(app.getHttpServer()).post('/api/auth/send-otp').send({ mobile });

  if (appEnv === 'production') {
    it('are random: 20 codes are not all alike, and 123456 is refused', async () => {
      const user = await registerUser(app, { mobile: uniqueMobile() });
      const mobile = user.mobile!;
      const codes: string[] = [];
      for (let i = 0; i < 20; i++) {
        await send(mobile);
        codes.push(await sms.codeFor(mobile));
      }
      expect(codes.every((code) => /^\d{6}$/.test(code))).toBe(true);
      expect(new Set(codes).size).toBeGreaterThan(15);
      const latest = codes.at(-1)!;
      if (latest !== '123456') {
        const res = await request(app.getHttpServer()).post('/api/auth/verify-otp').send({ mobile, otp: '123456' });
        expect(res.status).toBe(401);
        expect(res.body.error.code).toBe('INVALID_OTP');
      }
    });
  } else {
    it('are always 123456', async () => {
      const user = await registerUser(app, { mobile: uniqueMobile() });
      await send(user.mobile!);
      expect(await sms.codeFor(user.mobile!)).toBe('123456');
      const res = await request(app.getHttpServer())
        .post('/api/auth/verify-otp')
        .send({ mobile: user.mobile, otp: '123456' });
      expect(res.status).toBe(200);
    });
  }
});
