import { Injectable, type ExecutionContext } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { AuthGuard } from '@nestjs/passport';
import { IS_PUBLIC_KEY } from './public.decorator.js';
import { invalidToken } from './token.service.js';

/** Global: every route needs a valid access token unless it is marked `@Public()`. */
@Injectable()
export class AuthenticationGuard extends AuthGuard('jwt') {
  constructor(private readonly reflector: Reflector) {
    super();
  }

  override canActivate(context: ExecutionContext) {
    const isPublic = this.reflector.getAllAndOverride<boolean>(IS_PUBLIC_KEY, [context.getHandler(), context.getClass()]);
    return isPublic ? true : super.canActivate(context);
  }

  /** Token problems arrive as `info` and become 401; a failing database stays a 503. */
  override handleRequest<T>(error: unknown, user: T | false): T {
    if (error) throw error;
    if (!user) throw invalidToken();
    return user;
  }
}
