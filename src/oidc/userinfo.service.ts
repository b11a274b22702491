import type { AuthUser } from '@auth-rbac/nest-guard';
import { Injectable } from '@nestjs/common';
import { AppException } from '../common/app-exception.js';
import { PrincipalService } from '../rbac/index.js';

/** OpenID Connect Core §5.3.2: the standard claims this service knows; absent ones are omitted, never null. */
export interface UserInfoResponse {
  sub: string;
  email: string;
  email_verified: boolean;
  name: string;
  phone_number?: string;
}

/**
 * `GET /api/auth/userinfo`: the signed-in person's standard claims (bare JSON). A token issued to
 * an application through the authorization endpoint sees only what its scopes allow (OpenID
 * Connect Core §5.4: `email` → email and email_verified, `profile` → name, `phone` →
 * phone_number; `sub` always); the service's own tokens carry no scope and see them all.
 */
@Injectable()
export class UserInfoService {
  constructor(private readonly principals: PrincipalService) {}

  async userinfo(caller: AuthUser, scope?: string): Promise<UserInfoResponse | { sub: string }> {
    const profile = await this.principals.profile({ id: caller.id, sessionId: caller.sessionId });
    if (!profile) throw new AppException('UNAUTHENTICATED', 'The token is missing, invalid, expired or revoked.');
    const scopes = scope === undefined ? undefined : new Set(scope.split(' '));
    const allows = (name: string) => scopes === undefined || scopes.has(name);
    return {
      sub: profile.id,
      ...(allows('email') ? { email: profile.email, email_verified: profile.email_verified } : {}),
      ...(allows('profile') ? { name: profile.name } : {}),
      ...(allows('phone') && profile.mobile ? { phone_number: profile.mobile } : {}),
    };
  }
}
