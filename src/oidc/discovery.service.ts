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
      // The OpenID provider (src/provider): the authorization code with PKCE S256, for every client.
      authorization_endpoint: `${issuer}/api/auth/authorize`,
      end_session_endpoint: `${issuer}/api/auth/authorize/end-session`,
      grant_types_supported: ['authorization_code', 'refresh_token', 'client_credentials'],
      response_types_supported: ['code'],
      response_modes_supported: ['query'],
      code_challenge_methods_supported: ['S256'],
      scopes_supported: ['openid', 'profile', 'email', 'phone', 'offline_access'],
      authorization_response_iss_parameter_supported: true,
      // Public clients (a browser or native app with PKCE) authenticate with nothing but their id.
      token_endpoint_auth_methods_supported: [...CLIENT_AUTH_METHODS, 'none'],
      introspection_endpoint_auth_methods_supported: CLIENT_AUTH_METHODS,
      revocation_endpoint_auth_methods_supported: CLIENT_AUTH_METHODS,
      subject_types_supported: ['public'],
      // ID tokens are RS256 whatever signs the access tokens, so any relying party verifies them.
      id_token_signing_alg_values_supported: ['RS256'],
      // Back-channel logout (src/provider): a logout token with `sid` at every end of a session.
      backchannel_logout_supported: true,
      backchannel_logout_session_supported: true,
      // RFC 7591, only when OIDC_DYNAMIC_REGISTRATION is on.
      ...(config.dynamicRegistration.enabled ? { registration_endpoint: `${issuer}/api/auth/register-client` } : {}),
      prompt_values_supported: ['none', 'login', 'consent'],
      claims_supported: [
        'sub',
        'iss',
        'aud',
        'exp',
        'iat',
        'auth_time',
        'nonce',
        'amr',
        'sid',
        'email',
        'email_verified',
        'name',
        'phone_number',
      ],
    });
  }

  discovery(): Record<string, unknown> {
    return this.document;
  }
}
