import { Injectable, type CanActivate, type ExecutionContext } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { FastifyRequest } from 'fastify';
import { AppException } from '../common/app-exception.js';
import { AppConfig } from '../config/app-config.js';
import { ACCESS_TOKEN_COOKIE, IS_PUBLIC_KEY } from '@auth-rbac/nest-guard/internal';
import { READS_REFRESH_COOKIE_KEY, REFRESH_TOKEN_COOKIE } from '../sessions/index.js';
import { claimedOrigin, isWriteMethod, originOf, TrustedOrigins } from '../sign-in/index.js';

/**
 * CSRF defence for cookie-authenticated APIs (OWASP ASVS V13.2.3): a write that a cookie
 * authenticates must come from a trusted origin, since a browser attaches cookies to requests
 * that any page can start. Global and first among the guards, so a refused request does nothing,
 * not even consume a refresh token or a rate-limit slot. Bearer tokens and a refresh token in
 * the body are never sent by a browser on its own, so those requests are not affected.
 */
@Injectable()
export class CookieOriginGuard implements CanActivate {
  private readonly trusted: TrustedOrigins;

  constructor(
    private readonly reflector: Reflector,
    config: AppConfig,
  ) {
    this.trusted = new TrustedOrigins(config.http.appUrl, config.http.corsOrigins);
  }

  canActivate(context: ExecutionContext): boolean {
    const request = context.switchToHttp().getRequest<FastifyRequest>();
    if (!isWriteMethod(request.method) || !this.isCookieAuthenticated(context, request)) return true;
    const origin = claimedOrigin({ origin: header(request, 'origin'), referer: header(request, 'referer') });
    if (this.trusted.allows(origin, originOf(`${request.protocol}://${request.host}`))) return true;
    throw new AppException('FORBIDDEN', 'A request authenticated by a cookie must come from an allowed origin.');
  }

  /** Mirrors how the credentials are read: Bearer before the access cookie, a body token before the refresh cookie. */
  private isCookieAuthenticated(context: ExecutionContext, request: FastifyRequest): boolean {
    const targets = [context.getHandler(), context.getClass()];
    if (this.reflector.getAllAndOverride<boolean>(READS_REFRESH_COOKIE_KEY, targets)) {
      const body = request.body as Record<string, unknown> | undefined;
      const inBody = typeof body === 'object' && body !== null && body.refresh_token !== undefined;
      return !inBody && request.cookies?.[REFRESH_TOKEN_COOKIE] !== undefined;
    }
    if (this.reflector.getAllAndOverride<boolean>(IS_PUBLIC_KEY, targets)) return false;
    return request.headers.authorization === undefined && request.cookies?.[ACCESS_TOKEN_COOKIE] !== undefined;
  }
}

function header(request: FastifyRequest, name: 'origin' | 'referer'): string | undefined {
  const value = request.headers[name];
  return Array.isArray(value) ? value[0] : value;
}
