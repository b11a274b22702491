import { Injectable } from '@nestjs/common';
import { AppConfig } from '../config/app-config.js';
import { UsersRepository } from '../identity/index.js';
import { IdTokenKeys } from './id-token-keys.js';

/**
 * ID tokens (OpenID Connect Core §2): RS256 with the provider's key; `sub` the person, `aud` the
 * client, `sid` the browser sign-in, and the profile claims the scopes allow.
 */
@Injectable()
export class IdTokens {
  constructor(
    private readonly keys: IdTokenKeys,
    private readonly users: UsersRepository,
    private readonly config: AppConfig,
  ) {}

  async issue(grant: {
    userId: string;
    clientId: string;
    sessionId: string;
    nonce: string | null;
    authTime: Date;
    amr: string[];
    scopes: string[];
  }): Promise<string> {
    const profile = await this.users.findCallerProfile(grant.userId);
    const claims: Record<string, unknown> = {
      sub: grant.userId,
      aud: grant.clientId,
      auth_time: Math.floor(grant.authTime.getTime() / 1000),
      amr: grant.amr,
      sid: grant.sessionId,
      ...(grant.nonce !== null ? { nonce: grant.nonce } : {}),
    };
    if (profile && grant.scopes.includes('email')) {
      claims.email = profile.email;
      claims.email_verified = profile.emailVerified;
    }
    if (profile && grant.scopes.includes('profile')) claims.name = profile.name;
    if (profile?.mobile && grant.scopes.includes('phone')) claims.phone_number = profile.mobile;
    return this.keys.sign(claims, this.config.jwt.accessTokenTtl);
  }
}
