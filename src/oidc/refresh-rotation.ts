import { AppException } from '../common/app-exception.js';
import type { SessionService } from '../sessions/index.js';
import { OAuthError } from './oauth-error.js';
import type { TokenResponse } from './token-grants.js';

/**
 * The refresh_token grant's rotation, for the token endpoint and the provider alike: the new pair
 * as OAuth answers it; a refused token is `invalid_grant`, a reused one said apart (its session is
 * revoked by then). `organizationId` asks for that organization's access token, of the same session.
 */
export async function rotateRefreshToken(
  sessions: SessionService,
  refreshToken: string,
  accessTokenTtl: number,
  organizationId?: string,
): Promise<TokenResponse> {
  try {
    const { tokens } = await sessions.rotate(refreshToken, organizationId);
    return {
      access_token: tokens.accessToken,
      token_type: 'Bearer',
      expires_in: accessTokenTtl,
      refresh_token: tokens.refreshToken,
    };
  } catch (error) {
    if (error instanceof AppException && error.getStatus() === 401) {
      throw new OAuthError(
        400,
        'invalid_grant',
        error.code === 'REFRESH_TOKEN_REUSED'
          ? 'This refresh token was already used; the session has been revoked. Sign in again.'
          : 'The refresh token is invalid, expired or revoked.',
      );
    }
    throw error;
  }
}
