import { Body, Controller, Delete, Get, HttpCode, HttpStatus, Patch, Post, Req, Res } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { setAuthCookies } from '../core/sessions/auth-cookies.js';
import { AppConfig } from '../config/app-config.js';
import { clientOf } from '../core/sessions/client-info.js';
import { CurrentUser } from '@auth-rbac/nest-guard';
import { Public, RequireFreshAuth } from '@auth-rbac/nest-guard';
import { AllowedBeforeEnrolment } from '../common/before-enrolment.decorator.js';
import { EmptyBodyPipe } from '../common/empty-body.pipe.js';
import { UuidParam } from '../common/uuid-param.js';
import type { AuthUser } from '@auth-rbac/nest-guard';
import { AccountSessionsService } from './account-sessions.service.js';
import {
  ChangeEmailDto,
  ChangeMobileDto,
  ChangePasswordDto,
  ConfirmCodeDto,
  ConfirmEmailChangeDto,
  ReauthenticateDto,
  UpdateAccountDto,
} from './account.dto.js';
import { ReauthenticationService } from './reauthentication.service.js';
import { EmailChangeService } from './email-change.service.js';
import { MobileChangeService } from './mobile-change.service.js';
import { PasswordChangeService } from './password-change.service.js';
import { ProfileService } from './profile.service.js';
import { TotpEnrolmentService } from './totp-enrolment.service.js';

/** The signed-in person's own account: every route needs their access token and no permission. */
@Controller('account')
export class AccountController {
  constructor(
    private readonly profile: ProfileService,
    private readonly passwordChange: PasswordChangeService,
    private readonly sessions: AccountSessionsService,
    private readonly totp: TotpEnrolmentService,
    private readonly emailChange: EmailChangeService,
    private readonly mobileChange: MobileChangeService,
    private readonly reauthentication: ReauthenticationService,
    private readonly config: AppConfig,
  ) {}

  /** Proof of presence: a fresh `auth_time` for this session (sets the cookies like a sign-in). */
  @Post('reauthenticate')
  @AllowedBeforeEnrolment()
  @HttpCode(HttpStatus.OK)
  async reauthenticate(
    @CurrentUser() user: AuthUser,
    @Body() dto: ReauthenticateDto,
    @Req() request: FastifyRequest,
    @Res({ passthrough: true }) reply: FastifyReply,
  ) {
    const outcome = await this.reauthentication.handle(user, dto, clientOf(request));
    if (!('tokens' in outcome)) return outcome;
    setAuthCookies(reply, outcome.tokens, this.config);
    return outcome.response;
  }

  @Get()
  @AllowedBeforeEnrolment()
  get(@CurrentUser() user: AuthUser) {
    return this.profile.get(user);
  }

  @Patch()
  update(@CurrentUser() user: AuthUser, @Body() dto: UpdateAccountDto, @Req() request: FastifyRequest) {
    return this.profile.rename(user, dto.name, clientOf(request));
  }

  @Post('password')
  @HttpCode(HttpStatus.OK)
  changePassword(@CurrentUser() user: AuthUser, @Body() dto: ChangePasswordDto, @Req() request: FastifyRequest) {
    return this.passwordChange.change(user, dto, clientOf(request));
  }

  @Post('email')
  @RequireFreshAuth()
  @HttpCode(HttpStatus.OK)
  changeEmail(@CurrentUser() user: AuthUser, @Body() dto: ChangeEmailDto, @Req() request: FastifyRequest) {
    return this.emailChange.request(user, dto.email, clientOf(request));
  }

  /** The link from the mail: whoever holds it proves they read the new address; no session needed. */
  @Public()
  @Post('email/confirm')
  @HttpCode(HttpStatus.OK)
  confirmEmail(@Body() dto: ConfirmEmailChangeDto, @Req() request: FastifyRequest) {
    return this.emailChange.confirm(dto.token, clientOf(request));
  }

  /** The cancel link from the notice to the old address: whoever reads that mailbox may stop the change. */
  @Public()
  @Post('email/cancel')
  @HttpCode(HttpStatus.OK)
  cancelEmailChange(@Body() dto: ConfirmEmailChangeDto, @Req() request: FastifyRequest) {
    return this.emailChange.cancel(dto.token, clientOf(request));
  }

  @Post('mobile')
  @RequireFreshAuth()
  @HttpCode(HttpStatus.OK)
  changeMobile(@CurrentUser() user: AuthUser, @Body() dto: ChangeMobileDto, @Req() request: FastifyRequest) {
    return this.mobileChange.request(user, dto.mobile, clientOf(request));
  }

  @Post('mobile/confirm')
  @RequireFreshAuth()
  @HttpCode(HttpStatus.OK)
  confirmMobile(@CurrentUser() user: AuthUser, @Body() dto: ConfirmCodeDto, @Req() request: FastifyRequest) {
    return this.mobileChange.confirm(user, dto.code, clientOf(request));
  }

  @Get('sessions')
  listSessions(@CurrentUser() user: AuthUser) {
    return this.sessions.list(user.id, user.sessionId);
  }

  @Post('sessions/revoke-others')
  @HttpCode(HttpStatus.OK)
  async revokeOtherSessions(
    @CurrentUser() user: AuthUser,
    @Body(EmptyBodyPipe) _body: Record<string, never>,
    @Req() request: FastifyRequest,
  ) {
    await this.sessions.revokeOthers(user.id, user.sessionId, user.id, clientOf(request));
    return {};
  }

  @Delete('sessions/:id')
  revokeSession(@CurrentUser() user: AuthUser, @UuidParam() id: string, @Req() request: FastifyRequest) {
    return this.sessions.revokeOne(user.id, id, user.id, clientOf(request));
  }

  @Post('totp')
  @RequireFreshAuth()
  @AllowedBeforeEnrolment()
  @HttpCode(HttpStatus.OK)
  startTotp(
    @CurrentUser() user: AuthUser,
    @Body(EmptyBodyPipe) _body: Record<string, never>,
    @Req() request: FastifyRequest,
  ) {
    return this.totp.start(user, clientOf(request));
  }

  @Post('totp/confirm')
  @RequireFreshAuth()
  @AllowedBeforeEnrolment()
  @HttpCode(HttpStatus.OK)
  confirmTotp(@CurrentUser() user: AuthUser, @Body() dto: ConfirmCodeDto, @Req() request: FastifyRequest) {
    return this.totp.confirm(user, dto.code, clientOf(request));
  }

  /** Needs a fresh proof that includes a second factor (`amr` with `otp` or `mfa`). */
  @Delete('totp')
  @RequireFreshAuth()
  disableTotp(
    @CurrentUser() user: AuthUser,
    @Body(EmptyBodyPipe) _body: Record<string, never>,
    @Req() request: FastifyRequest,
  ) {
    return this.totp.disable(user, clientOf(request));
  }
}
