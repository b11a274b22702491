import type { CallHandler, ExecutionContext } from '@nestjs/common';
import type { FastifyReply } from 'fastify';
import { firstValueFrom, of } from 'rxjs';
import type { AppConfig } from '../config/app-config.js';
import { SessionCookiesInterceptor } from './session-cookies.interceptor.js';

interface SetCookie {
  name: string;
  value: string;
  options: Record<string, unknown>;
}

async function answered(outcome: unknown): Promise<{ body: unknown; cookies: SetCookie[] }> {
  const cookies: SetCookie[] = [];
  const reply = {
    setCookie(name: string, value: string, options: Record<string, unknown>) {
      cookies.push({ name, value, options });
      return reply;
    },
  } as unknown as FastifyReply;
  const context = { switchToHttp: () => ({ getResponse: () => reply }) } as unknown as ExecutionContext;
  const handler: CallHandler = { handle: () => of(outcome) };
  const config = { jwt: { accessTokenTtl: 900, refreshTokenTtl: 1209600 } } as AppConfig;
  const body = await firstValueFrom(new SessionCookiesInterceptor(config).intercept(context, handler));
  return { body, cookies };
}

describe('SessionCookiesInterceptor', () => {
  it('answers a new session with its body and sets both token cookies', async () => {
    const response = { access_token: 'access-1', refresh_token: 'refresh-1', token_type: 'Bearer' };
    const { body, cookies } = await answered({
      response,
      tokens: { accessToken: 'access-1', refreshToken: 'refresh-1' },
    });
    expect(body).toBe(response);
    expect(cookies).toEqual([
      {
        name: 'access_token',
        value: 'access-1',
        options: { httpOnly: true, secure: true, sameSite: 'strict', path: '/', maxAge: 900 },
      },
      {
        name: 'refresh_token',
        value: 'refresh-1',
        options: { httpOnly: true, secure: true, sameSite: 'strict', path: '/api/auth', maxAge: 1209600 },
      },
    ]);
  });

  it('answers a second-factor challenge as it is, without cookies', async () => {
    const challenge = { requires_2fa: true, temp_token: 'temp-1', methods: ['totp'] };
    const { body, cookies } = await answered({ challenge });
    expect(body).toBe(challenge);
    expect(cookies).toEqual([]);
  });

  it('answers anything else unchanged, without cookies', async () => {
    const pending = { requires_email_verification: true, email: 'a@example.test' };
    const { body, cookies } = await answered(pending);
    expect(body).toBe(pending);
    expect(cookies).toEqual([]);
  });
});
