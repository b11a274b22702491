import { CurrentUser, Public, type AuthUser } from '@auth-rbac/nest-guard';
import { Controller, Get, HttpCode, HttpStatus, Post, Req, Res } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { decodeJwt } from 'jose';
import { SkipRateLimits } from '../common/rate-limits.js';
import { OAuthError } from './oauth-error.js';
import { RevocationService } from './revocation.service.js';
import { TokenEndpointService } from './token-endpoint.service.js';
import { UserInfoService } from './userinfo.service.js';
import { DocumentRoute, ref } from '../common/route-doc.js';

/**
 * The standard endpoints for clients nobody here wrote: token (RFC 6749), revocation (RFC 7009)
 * and userinfo (OpenID Connect Core §5.3). Their answers are the bare JSON of their RFCs, not
 * the envelope. Token and revocation authenticate the calling client and are limited per client
 * (TOKEN_RATE_PER_MINUTE), not by the per-address limits of the sign-in endpoints.
 */
@Controller('auth')
export class OAuthController {
  constructor(
    private readonly tokenEndpoint: TokenEndpointService,
    private readonly revocation: RevocationService,
    private readonly userInfo: UserInfoService,
  ) {}

  @Public()
  @SkipRateLimits()
  @Post('token')
  @HttpCode(HttpStatus.OK)
  @DocumentRoute({
    summary: 'OAuth 2.0 token endpoint (RFC 6749): client credentials and refresh tokens',
    bare: ref('TokenResponse'),
    clientCredentials: true,
    oauthErrors: true,
  })
  async token(@Req() request: FastifyRequest, @Res() reply: FastifyReply): Promise<void> {
    await answer(reply, () => this.tokenEndpoint.token(request));
  }

  @Public()
  @SkipRateLimits()
  @Post('revoke')
  @HttpCode(HttpStatus.OK)
  @DocumentRoute({
    summary: 'OAuth 2.0 token revocation (RFC 7009)',
    bare: ref('Revocation'),
    clientCredentials: true,
    oauthErrors: true,
  })
  async revoke(@Req() request: FastifyRequest, @Res() reply: FastifyReply): Promise<void> {
    await answer(reply, async () => {
      await this.revocation.revoke(request);
      return {};
    });
  }

  @Get('userinfo')
  @DocumentRoute({ summary: 'OpenID Connect userinfo: claims about the signed-in caller', bare: ref('UserInfo') })
  async userinfo(
    @CurrentUser() user: AuthUser,
    @Req() request: FastifyRequest,
    @Res() reply: FastifyReply,
  ): Promise<void> {
    void reply.status(HttpStatus.OK).send(await this.userInfo.userinfo(user, grantedScope(request)));
  }
}

/**
 * The `scope` of the caller's access token (the guard has verified it on this request), or
 * undefined for the service's own sign-ins, whose tokens carry none and see every claim.
 */
function grantedScope(request: FastifyRequest): string | undefined {
  const match = /^Bearer\s+(\S+)$/i.exec(request.headers.authorization ?? '');
  if (!match) return undefined;
  try {
    const scope = decodeJwt(match[1]).scope;
    return typeof scope === 'string' ? scope : undefined;
  } catch {
    return undefined;
  }
}

/** The result as 200, or an OAuthError in RFC 6749 §5.2's shape; anything else goes to the filter. */
async function answer(reply: FastifyReply, run: () => Promise<object>): Promise<void> {
  try {
    void reply.status(HttpStatus.OK).send(await run());
  } catch (error) {
    if (!(error instanceof OAuthError)) throw error;
    void reply.status(error.status).headers(error.headers).send(error.body());
  }
}
