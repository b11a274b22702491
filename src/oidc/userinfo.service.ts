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

/** `GET /api/auth/userinfo`: the signed-in person's standard claims (bare JSON). */
@Injectable()
export class UserInfoService {
  constructor(private readonly principals: PrincipalService) {}

  async userinfo(caller: AuthUser): Promise<UserInfoResponse> {
    const profile = await this.principals.profile({ id: caller.id, sessionId: caller.sessionId });
    if (!profile) throw new AppException('UNAUTHENTICATED', 'The token is missing, invalid, expired or revoked.');
    return {
      sub: profile.id,
      email: profile.email,
      email_verified: profile.email_verified,
      name: profile.name,
      ...(profile.mobile ? { phone_number: profile.mobile } : {}),
    };
  }
}
