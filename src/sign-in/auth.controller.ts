import { Body, Controller, Get, HttpCode, HttpStatus, Post, Req, Res } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { AllowedBeforeEnrolment } from '../common/before-enrolment.decorator.js';
import { TakesNoBody } from '../common/empty-body.pipe.js';
import type { AuthUser } from '@auth-rbac/nest-guard';
import { PrincipalService } from '../rbac/index.js';
import { OrganizationTokensService } from '../organizations/index.js';
import {
  clearAuthCookies,
  IssuesSession,
  ReadsRefreshCookie,
  REFRESH_TOKEN_COOKIE,
  SessionService,
  invalidToken,
} from '../sessions/index.js';
import { LoginDto, RefreshDto, RegisterDto } from './auth.dto.js';
import { AuthService } from './auth.service.js';
import { CurrentUser, Public } from '@auth-rbac/nest-guard';
import { Client, type ClientInfo } from '../common/client-info.js';
import { DocumentRoute, ref, empty, tokensOr } from '../common/route-doc.js';

@Controller('auth')
export class AuthController {
  constructor(
    private readonly auth: AuthService,
    private readonly sessions: SessionService,
    private readonly principals: PrincipalService,
    private readonly organizations: OrganizationTokensService,
  ) {}

  @Public()
  @Post('register')
  @IssuesSession()
  @DocumentRoute({
    summary: 'Create an account (role user) and sign in',
    data: tokensOr(ref('PendingVerification')),
    statuses: {
      403: 'LOGIN_METHOD_DISABLED: password sign-in is off.',
      409: 'CONFLICT: the email or mobile is taken.',
    },
  })
  register(@Body() dto: RegisterDto, @Client() client: ClientInfo) {
    // Under REQUIRE_EMAIL_VERIFICATION the account waits for its address: no session, no cookies.
    return this.auth.register(dto, client);
  }

  @Public()
  @Post('login')
  @HttpCode(HttpStatus.OK)
  @IssuesSession()
  @DocumentRoute({
    summary: 'Sign in with email or mobile and a password',
    data: tokensOr(ref('TwoFactorChallenge')),
    statuses: {
      401: 'INVALID_CREDENTIALS: wrong password, unknown email or mobile (same body and timing).',
      403: 'LOGIN_METHOD_DISABLED: password sign-in is off; ACCOUNT_DISABLED or EMAIL_NOT_VERIFIED (REQUIRE_EMAIL_VERIFICATION), said only after the right password.',
    },
  })
  login(@Body() dto: LoginDto, @Client() client: ClientInfo) {
    return this.auth.login(dto, client);
  }

  @Public()
  @ReadsRefreshCookie()
  @Post('refresh')
  @HttpCode(HttpStatus.OK)
  @IssuesSession()
  @DocumentRoute({
    summary: 'Exchange a refresh token for a new pair (single use)',
    data: ref('TokenPair'),
    statuses: {
      401: 'UNAUTHENTICATED or REFRESH_TOKEN_REUSED (the session is now revoked).',
      403: 'FORBIDDEN: a refresh cookie sent from an origin that is not allowed; ACCOUNT_DISABLED: the session is live but its account is disabled.',
    },
  })
  refresh(@Body() dto: RefreshDto, @Req() request: FastifyRequest) {
    const token = dto.refresh_token ?? request.cookies?.[REFRESH_TOKEN_COOKIE];
    if (!token) throw invalidToken();
    return this.auth.refresh(token);
  }

  @Post('logout')
  @AllowedBeforeEnrolment()
  @HttpCode(HttpStatus.OK)
  @TakesNoBody()
  @DocumentRoute({ summary: 'Sign out: revoke the current session and clear the cookies', data: empty })
  async logout(
    @CurrentUser() user: AuthUser,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<Record<string, never>> {
    await this.sessions.revoke(user.sessionId, 'logout');
    clearAuthCookies(reply);
    return {};
  }

  @Get('me')
  @AllowedBeforeEnrolment()
  @DocumentRoute({ summary: 'The signed-in caller, with roles and permissions', data: ref('Caller') })
  async me(@CurrentUser() user: AuthUser) {
    const profile = await this.principals.profile(user);
    if (!profile) throw invalidToken();
    // Under an organization token: that organization, and its roles and permissions as the caller's.
    const organization = await this.organizations.summary(user);
    return { ...profile, roles: user.roles, permissions: user.permissions, ...(organization ? { organization } : {}) };
  }
}
