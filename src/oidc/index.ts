export { ClientAuthentication, ClientAuthenticationError, type ClientEndpoint } from './client-authentication.js';
export { ClientTokensService } from './client-tokens.service.js';
export { OidcModule } from './oidc.module.js';
export { principalOfSession } from './principal-of-session.js';
export { OAuthError } from './oauth-error.js';
export { parameter } from './oauth-clients.js';
export { TokenGrants, type TokenGrantContext, type TokenGrantHandler, type TokenResponse } from './token-grants.js';
export { rotateRefreshToken } from './refresh-rotation.js';
