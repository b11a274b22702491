export { AnyAudienceVerifier } from './any-audience-verifier.js';
export {
  READS_REFRESH_COOKIE_KEY,
  REFRESH_TOKEN_COOKIE,
  ReadsRefreshCookie,
  clearAuthCookies,
} from './auth-cookies.js';
export { IssuesSession } from './session-cookies.interceptor.js';
export {
  afterReauthentication,
  methodsOf,
  oneFactor,
  twoFactors,
  userVerifyingPasskey,
  type AuthenticationMethod,
} from './authentication-methods.js';
export { PasswordResetTokensRepository } from './password-reset-tokens.repository.js';
export {
  SessionService,
  tokenPairResponse,
  type IssuedSession,
  type IssuedTokens,
  type SignInCompletion,
  type PublicUser,
  type TokenPairResponse,
} from './session.service.js';
export { PublishedKeys, type PublishedKeySource } from './published-keys.js';
export { SessionsRepository, type SessionGrant } from './sessions.repository.js';
export { SessionEndings, type EndedSession, type SessionEndListener } from './session-endings.js';
export {
  SigningKeys,
  generatePrivateKeyPem,
  previousKeysFileOf,
  privateKeyFileOf,
  writePrivateFile,
} from './signing-keys.js';
export { TWO_FACTOR_TOKEN_TTL, TokenService, invalidToken, type ClientGrantClaims } from './token.service.js';
export { isUuid, principalOfCaller, type CallerSources } from './caller.js';
export { SessionsModule } from './sessions.module.js';
