import { Injectable } from '@nestjs/common';
import { AppConfig } from '../config/app-config.js';

const CLIENT_AUTH_METHODS = ['client_secret_basic', 'client_secret_post'];

/**
 * The discovery document (OpenID Connect Discovery 1.0, RFC 8414), built from ISSUER and the
 * running configuration: the same answer at both well-known addresses.
 */
@Injectable()
export class DiscoveryService {
  private readonly document: Record<string, unknown>;

  constructor(config: AppConfig) {
    const issuer = config.http.issuer;
    this.document = Object.freeze({
      issuer,
      jwks_uri: `${issuer}/.well-known/jwks.json`,
      token_endpoint: `${issuer}/api/auth/token`,
      introspection_endpoint: `${issuer}/api/auth/introspect`,
      revocation_endpoint: `${issuer}/api/auth/revoke`,
      userinfo_endpoint: `${issuer}/api/auth/userinfo`,
      grant_types_supported: ['client_credentials', 'refresh_token'],
      // No authorization endpoint: tokens come from the sign-in API and the token endpoint.
      response_types_supported: ['none'],
      token_endpoint_auth_methods_supported: CLIENT_AUTH_METHODS,
      introspection_endpoint_auth_methods_supported: CLIENT_AUTH_METHODS,
      revocation_endpoint_auth_methods_supported: CLIENT_AUTH_METHODS,
      subject_types_supported: ['public'],
      id_token_signing_alg_values_supported: [config.signing.algorithm],
      claims_supported: ['sub', 'email', 'email_verified', 'name', 'phone_number'],
    });
  }

  discovery(): Record<string, unknown> {
    return this.document;
  }
}
