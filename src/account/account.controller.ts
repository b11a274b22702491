import { Body, Controller, Delete, Get, HttpCode, HttpStatus, Patch, Post, Res } from '@nestjs/common';
import type { FastifyReply } from 'fastify';
import { withAuthCookies } from '../sessions/index.js';
import { AppConfig } from '../config/app-config.js';
import { CurrentUser, Public, RequireFreshAuth } from '@auth-rbac/nest-guard';
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
import { AccountDeletionService } from './account-deletion.service.js';
import { Client, type ClientInfo } from '../common/client-info.js';

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
    private readonly deletion: AccountDeletionService,
  ) {}

  /** Proof of presence: a fresh `auth_time` for this session (sets the cookies like a sign-in). */
  @Post('reauthenticate')
  @AllowedBeforeEnrolment()
  @HttpCode(HttpStatus.OK)
  async reauthenticate(
    @CurrentUser() user: AuthUser,
    @Body() dto: ReauthenticateDto,
    @Client() client: ClientInfo,
    @Res({ passthrough: true }) reply: FastifyReply,
  ) {
    const outcome = await this.reauthentication.handle(user, dto, client);
    if (!('tokens' in outcome)) return outcome;
    return withAuthCookies(reply, outcome, this.config);
  }

  @Get()
  @AllowedBeforeEnrolment()
  get(@CurrentUser() user: AuthUser) {
    return this.profile.get(user);
  }

  @Patch()
  update(@CurrentUser() user: AuthUser, @Body() dto: UpdateAccountDto, @Client() client: ClientInfo) {
    return this.profile.rename(user, dto.name, client);
  }

  /** The holder deletes their own account: everything of it goes, audit events keep its id. */
  @Delete()
  @RequireFreshAuth()
  delete(
    @CurrentUser() user: AuthUser,
    @Body(EmptyBodyPipe) _body: Record<string, never>,
    @Client() client: ClientInfo,
  ): Promise<Record<string, never>> {
    return this.deletion.delete(user, client);
  }

  @Post('password')
  @HttpCode(HttpStatus.OK)
  changePassword(@CurrentUser() user: AuthUser, @Body() dto: ChangePasswordDto, @Client() client: ClientInfo) {
    return this.passwordChange.change(user, dto, client);
  }

  @Post('email')
  @RequireFreshAuth()
  @HttpCode(HttpStatus.OK)
  changeEmail(@CurrentUser() user: AuthUser, @Body() dto: ChangeEmailDto, @Client() client: ClientInfo) {
    return this.emailChange.request(user, dto.email, client);
  }

  /** The link from the mail: whoever holds it proves they read the new address; no session needed. */
  @Public()
  @Post('email/confirm')
  @HttpCode(HttpStatus.OK)
  confirmEmail(@Body() dto: ConfirmEmailChangeDto, @Client() client: ClientInfo) {
    return this.emailChange.confirm(dto.token, client);
  }

  /** The cancel link from the notice to the old address: whoever reads that mailbox may stop the change. */
  @Public()
  @Post('email/cancel')
  @HttpCode(HttpStatus.OK)
  cancelEmailChange(@Body() dto: ConfirmEmailChangeDto, @Client() client: ClientInfo) {
    return this.emailChange.cancel(dto.token, client);
  }

  @Post('mobile')
  @RequireFreshAuth()
  @HttpCode(HttpStatus.OK)
  changeMobile(@CurrentUser() user: AuthUser, @Body() dto: ChangeMobileDto, @Client() client: ClientInfo) {
    return this.mobileChange.request(user, dto.mobile, client);
  }

  @Post('mobile/confirm')
  @RequireFreshAuth()
  @HttpCode(HttpStatus.OK)
  confirmMobile(@CurrentUser() user: AuthUser, @Body() dto: ConfirmCodeDto, @Client() client: ClientInfo) {
    return this.mobileChange.confirm(user, dto.code, client);
  }

  @Get('sessions')
  listSessions(@CurrentUser() user: AuthUser) {
    return this.sessions.list(user.id, { userId: user.id, sessionId: user.sessionId });
  }

  @Post('sessions/revoke-others')
  @HttpCode(HttpStatus.OK)
  async revokeOtherSessions(
    @CurrentUser() user: AuthUser,
    @Body(EmptyBodyPipe) _body: Record<string, never>,
    @Client() client: ClientInfo,
  ) {
    await this.sessions.revokeOthers({ userId: user.id, keepSessionId: user.sessionId }, user, client);
    return {};
  }

  @Delete('sessions/:id')
  revokeSession(@CurrentUser() user: AuthUser, @UuidParam() id: string, @Client() client: ClientInfo) {
    return this.sessions.revokeOne({ userId: user.id, sessionId: id }, user, client);
  }

  @Post('totp')
  @RequireFreshAuth()
  @AllowedBeforeEnrolment()
  @HttpCode(HttpStatus.OK)
  startTotp(
    @CurrentUser() user: AuthUser,
    @Body(EmptyBodyPipe) _body: Record<string, never>,
    @Client() client: ClientInfo,
  ) {
    return this.totp.start(user, client);
  }

  @Post('totp/confirm')
  @RequireFreshAuth()
  @AllowedBeforeEnrolment()
  @HttpCode(HttpStatus.OK)
  confirmTotp(@CurrentUser() user: AuthUser, @Body() dto: ConfirmCodeDto, @Client() client: ClientInfo) {
    return this.totp.confirm(user, dto.code, client);
  }

  /** Needs a fresh proof that includes a second factor (`amr` with `otp` or `mfa`). */
  @Delete('totp')
  @RequireFreshAuth()
  disableTotp(
    @CurrentUser() user: AuthUser,
    @Body(EmptyBodyPipe) _body: Record<string, never>,
    @Client() client: ClientInfo,
  ) {
    return this.totp.disable(user, client);
  }
}
