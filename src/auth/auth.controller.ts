import { Body, Controller, Get, HttpCode, HttpStatus, Post, Req, Res } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { AllowedBeforeEnrolment } from '../common/before-enrolment.decorator.js';
import { EmptyBodyPipe } from '../common/empty-body.pipe.js';
import { AppConfig } from '../config/app-config.js';
import type { AuthUser } from '@auth-rbac/nest-guard';
import { PrincipalService } from '../core/principal/principal.service.js';
import {
  clearAuthCookies,
  ReadsRefreshCookie,
  REFRESH_TOKEN_COOKIE,
  setAuthCookies,
} from '../core/sessions/auth-cookies.js';
import {
  ForgotPasswordDto,
  LoginDto,
  RefreshDto,
  RegisterDto,
  ResendVerificationDto,
  ResetPasswordDto,
  VerifyEmailDto,
} from './auth.dto.js';
import { EmailVerificationService } from './email-verification.service.js';
import { AuthService, type TokenPairResponse } from './auth.service.js';
import { clientOf } from '../core/sessions/client-info.js';
import { CurrentUser } from '@auth-rbac/nest-guard';
import { PasswordResetService } from './password-reset.service.js';
import { Public } from '@auth-rbac/nest-guard';
import { SessionService, type IssuedTokens } from '../core/sessions/session.service.js';
import { invalidToken } from '../core/sessions/token.service.js';

@Controller('auth')
export class AuthController {
  constructor(
    private readonly auth: AuthService,
    private readonly sessions: SessionService,
    private readonly passwordReset: PasswordResetService,
    private readonly principals: PrincipalService,
    private readonly config: AppConfig,
    private readonly verification: EmailVerificationService,
  ) {}

  @Public()
  @Post('register')
  async register(
    @Body() dto: RegisterDto,
    @Req() request: FastifyRequest,
    @Res({ passthrough: true }) reply: FastifyReply,
  ) {
    const outcome = await this.auth.register(dto, clientOf(request));
    // Under REQUIRE_EMAIL_VERIFICATION the account waits for its address: no session, no cookies.
    return 'requires_email_verification' in outcome ? outcome : this.withCookies(reply, outcome);
  }

  @Public()
  @Post('verify-email')
  @HttpCode(HttpStatus.OK)
  verifyEmail(@Body() dto: VerifyEmailDto, @Req() request: FastifyRequest) {
    return this.verification.verify(dto.token, clientOf(request));
  }

  @Public()
  @Post('verify-email/resend')
  @HttpCode(HttpStatus.OK)
  resendVerification(@Body() dto: ResendVerificationDto, @Req() request: FastifyRequest) {
    return this.verification.resend(dto.email, clientOf(request));
  }

  @Public()
  @Post('login')
  @HttpCode(HttpStatus.OK)
  async login(@Body() dto: LoginDto, @Req() request: FastifyRequest, @Res({ passthrough: true }) reply: FastifyReply) {
    const outcome = await this.auth.login(dto, clientOf(request));
    // A two-factor challenge carries a temp token only: no session, no cookies yet.
    return 'challenge' in outcome ? outcome.challenge : this.withCookies(reply, outcome);
  }

  @Public()
  @ReadsRefreshCookie()
  @Post('refresh')
  @HttpCode(HttpStatus.OK)
  async refresh(
    @Body() dto: RefreshDto,
    @Req() request: FastifyRequest,
    @Res({ passthrough: true }) reply: FastifyReply,
  ) {
    const token = dto.refresh_token ?? request.cookies?.[REFRESH_TOKEN_COOKIE];
    if (!token) throw invalidToken();
    return this.withCookies(reply, await this.auth.refresh(token));
  }

  @Post('logout')
  @AllowedBeforeEnrolment()
  @HttpCode(HttpStatus.OK)
  async logout(
    @CurrentUser() user: AuthUser,
    @Body(EmptyBodyPipe) _body: Record<string, never>,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<Record<string, never>> {
    await this.sessions.revoke(user.sessionId, 'logout');
    clearAuthCookies(reply);
    return {};
  }

  @Get('me')
  @AllowedBeforeEnrolment()
  async me(@CurrentUser() user: AuthUser) {
    const profile = await this.principals.profile(user);
    if (!profile) throw invalidToken();
    return { ...profile, roles: user.roles, permissions: user.permissions };
  }

  @Public()
  @Post('forgot-password')
  @HttpCode(HttpStatus.OK)
  forgotPassword(@Body() dto: ForgotPasswordDto, @Req() request: FastifyRequest) {
    return this.passwordReset.requestReset(dto.email, clientOf(request));
  }

  @Public()
  @Post('reset-password')
  @HttpCode(HttpStatus.OK)
  resetPassword(@Body() dto: ResetPasswordDto, @Req() request: FastifyRequest) {
    return this.passwordReset.reset(dto.token, dto.password, clientOf(request));
  }

  private withCookies(
    reply: FastifyReply,
    issued: { response: TokenPairResponse; tokens: IssuedTokens },
  ): TokenPairResponse {
    setAuthCookies(reply, issued.tokens, this.config);
    return issued.response;
  }
}
