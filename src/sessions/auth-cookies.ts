import { SetMetadata } from '@nestjs/common';
import type { FastifyReply } from 'fastify';
import type { AppConfig } from '../config/app-config.js';
import { ACCESS_TOKEN_COOKIE } from '@auth-rbac/nest-guard/internal';

export const REFRESH_TOKEN_COOKIE = 'refresh_token';
/** The refresh cookie only travels to the endpoints that use it. */
const REFRESH_COOKIE_PATH = '/api/auth';

export const READS_REFRESH_COOKIE_KEY = 'readsRefreshCookie';
/** The handler may be authenticated by the refresh cookie (CookieOriginGuard checks such writes). */
export const ReadsRefreshCookie = () => SetMetadata(READS_REFRESH_COOKIE_KEY, true);

const BASE = { httpOnly: true, secure: true, sameSite: 'strict' } as const;

/** Browser delivery of the token pair, as the contract sets it on every response that issues tokens. */
export function setAuthCookies(
  reply: FastifyReply,
  tokens: { accessToken: string; refreshToken: string },
  config: AppConfig,
): void {
  void reply.setCookie(ACCESS_TOKEN_COOKIE, tokens.accessToken, {
    ...BASE,
    path: '/',
    maxAge: config.jwt.accessTokenTtl,
  });
  void reply.setCookie(REFRESH_TOKEN_COOKIE, tokens.refreshToken, {
    ...BASE,
    path: REFRESH_COOKIE_PATH,
    maxAge: config.jwt.refreshTokenTtl,
  });
}

export function clearAuthCookies(reply: FastifyReply): void {
  void reply.clearCookie(ACCESS_TOKEN_COOKIE, { ...BASE, path: '/' });
  void reply.clearCookie(REFRESH_TOKEN_COOKIE, { ...BASE, path: REFRESH_COOKIE_PATH });
}
