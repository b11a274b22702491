import { AccessTokenVerifier } from '@auth-rbac/nest-guard/internal';
import { Injectable } from '@nestjs/common';
import { SigningKeys } from './signing-keys.js';

/**
 * The service's access tokens whatever their audience: a service token a client asked for
 * another service is not for this service's own routes (its guard checks `aud`), but
 * introspection and revocation must still know it. Everything else (`typ`, `iss`, signature,
 * times, `token_type`) is checked as by the guard.
 */
@Injectable()
export class AnyAudienceVerifier extends AccessTokenVerifier {
  constructor(keys: SigningKeys) {
    super(keys, { issuer: keys.issuer, anyAudience: true });
  }
}
