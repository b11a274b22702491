import { Body, Controller, Delete, Get, HttpCode, HttpStatus, Patch, Post } from '@nestjs/common';
import { IssuesSession } from '../sessions/index.js';
import { CurrentUser, Public, RequireFreshAuth } from '@auth-rbac/nest-guard';
import { AllowedBeforeEnrolment } from '../common/before-enrolment.decorator.js';
import { TakesNoBody } from '../common/empty-body.pipe.js';
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
import { DocumentRoute, ref, list, empty, tokensOr } from '../common/route-doc.js';

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
    private readonly deletion: AccountDeletionService,
  ) {}

  /** Proof of presence: a fresh `auth_time` for this session (sets the cookies like a sign-in). */
  @Post('reauthenticate')
  @AllowedBeforeEnrolment()
  @HttpCode(HttpStatus.OK)
  @IssuesSession()
  @DocumentRoute({
    summary: 'Prove presence again (password, or a code with method sms, totp or recovery) for a fresh sign-in time',
    data: tokensOr(ref('OtpSent')),
    statuses: {
      401: 'INVALID_CREDENTIALS (wrong password, or a passkey answer that does not verify) or INVALID_OTP, OTP_EXPIRED, OTP_ATTEMPTS_EXCEEDED (codes); a wrong proof counts toward the account lockout. UNAUTHENTICATED without a valid access token.',
      429: 'RATE_LIMITED: the account is locked out, or the SMS cooldown or hourly cap holds.',
    },
  })
  reauthenticate(@CurrentUser() user: AuthUser, @Body() dto: ReauthenticateDto, @Client() client: ClientInfo) {
    return this.reauthentication.handle(user, dto, client);
  }

  @Get()
  @AllowedBeforeEnrolment()
  @DocumentRoute({ summary: "The signed-in person's own record", data: ref('Caller') })
  get(@CurrentUser() user: AuthUser) {
    return this.profile.get(user);
  }

  @Patch()
  @DocumentRoute({ summary: 'Change your own name', data: ref('Caller') })
  update(@CurrentUser() user: AuthUser, @Body() dto: UpdateAccountDto, @Client() client: ClientInfo) {
    return this.profile.rename(user, dto.name, client);
  }

  /** The holder deletes their own account: everything of it goes, audit events keep its id. */
  @Delete()
  @RequireFreshAuth()
  @TakesNoBody()
  @DocumentRoute({
    summary: 'Delete your own account (ends every session)',
    data: empty,
    statuses: { 409: 'CONFLICT: the last administrator cannot delete their account.' },
  })
  delete(@CurrentUser() user: AuthUser, @Client() client: ClientInfo): Promise<Record<string, never>> {
    return this.deletion.delete(user, client);
  }

  @Post('password')
  @HttpCode(HttpStatus.OK)
  @DocumentRoute({
    summary: 'Change your own password (ends every other session)',
    data: empty,
    statuses: { 401: 'INVALID_CREDENTIALS: the current password is wrong.' },
  })
  changePassword(@CurrentUser() user: AuthUser, @Body() dto: ChangePasswordDto, @Client() client: ClientInfo) {
    return this.passwordChange.change(user, dto, client);
  }

  @Post('email')
  @RequireFreshAuth()
  @HttpCode(HttpStatus.OK)
  @DocumentRoute({
    summary: 'Start changing your email (a link goes to the new address)',
    data: empty,
    statuses: { 401: 'INVALID_CREDENTIALS: the current password is wrong.', 409: 'CONFLICT: email taken.' },
  })
  changeEmail(@CurrentUser() user: AuthUser, @Body() dto: ChangeEmailDto, @Client() client: ClientInfo) {
    return this.emailChange.request(user, dto.email, client);
  }

  /** The link from the mail: whoever holds it proves they read the new address; no session needed. */
  @Public()
  @Post('email/confirm')
  @HttpCode(HttpStatus.OK)
  @DocumentRoute({
    summary: 'Confirm an email change with the link token',
    data: empty,
    statuses: { 409: 'CONFLICT: the email was taken meanwhile.' },
  })
  confirmEmail(@Body() dto: ConfirmEmailChangeDto, @Client() client: ClientInfo) {
    return this.emailChange.confirm(dto.token, client);
  }

  /** The cancel link from the notice to the old address: whoever reads that mailbox may stop the change. */
  @Public()
  @Post('email/cancel')
  @HttpCode(HttpStatus.OK)
  @DocumentRoute({ summary: 'Stop a pending email change with the link mailed to the old address', data: empty })
  cancelEmailChange(@Body() dto: ConfirmEmailChangeDto, @Client() client: ClientInfo) {
    return this.emailChange.cancel(dto.token, client);
  }

  @Post('mobile')
  @RequireFreshAuth()
  @HttpCode(HttpStatus.OK)
  @DocumentRoute({
    summary: 'Start changing your mobile (a code is texted to it)',
    data: ref('OtpSent'),
    statuses: { 401: 'INVALID_CREDENTIALS: the current password is wrong.', 409: 'CONFLICT: mobile taken.' },
  })
  changeMobile(@CurrentUser() user: AuthUser, @Body() dto: ChangeMobileDto, @Client() client: ClientInfo) {
    return this.mobileChange.request(user, dto.mobile, client);
  }

  @Post('mobile/confirm')
  @RequireFreshAuth()
  @HttpCode(HttpStatus.OK)
  @DocumentRoute({
    summary: 'Confirm a mobile change with the texted code',
    data: empty,
    statuses: { 401: 'INVALID_OTP or OTP_EXPIRED.', 409: 'CONFLICT: the mobile was taken meanwhile.' },
  })
  confirmMobile(@CurrentUser() user: AuthUser, @Body() dto: ConfirmCodeDto, @Client() client: ClientInfo) {
    return this.mobileChange.confirm(user, dto.code, client);
  }

  @Get('sessions')
  @DocumentRoute({ summary: 'Your own sessions', data: list(ref('Session')) })
  listSessions(@CurrentUser() user: AuthUser) {
    return this.sessions.list(user.id, { userId: user.id, sessionId: user.sessionId });
  }

  @Post('sessions/revoke-others')
  @HttpCode(HttpStatus.OK)
  @TakesNoBody()
  @DocumentRoute({ summary: 'End every session but this one', data: empty })
  async revokeOtherSessions(@CurrentUser() user: AuthUser, @Client() client: ClientInfo) {
    await this.sessions.revokeOthers({ userId: user.id, keepSessionId: user.sessionId }, user, client);
    return {};
  }

  @Delete('sessions/:id')
  @DocumentRoute({
    summary: 'End one of your sessions',
    data: empty,
    statuses: { 404: "NOT_FOUND: no such session of yours (someone else's is 404 too)." },
  })
  revokeSession(@CurrentUser() user: AuthUser, @UuidParam() id: string, @Client() client: ClientInfo) {
    return this.sessions.revokeOne({ userId: user.id, sessionId: id }, user, client);
  }

  @Post('totp')
  @RequireFreshAuth()
  @AllowedBeforeEnrolment()
  @HttpCode(HttpStatus.OK)
  @TakesNoBody()
  @DocumentRoute({
    summary: 'Start enrolling an authenticator app',
    data: ref('TotpEnrolment'),
    statuses: { 409: 'CONFLICT: an authenticator app is already enrolled.' },
  })
  startTotp(@CurrentUser() user: AuthUser, @Client() client: ClientInfo) {
    return this.totp.start(user, client);
  }

  @Post('totp/confirm')
  @RequireFreshAuth()
  @AllowedBeforeEnrolment()
  @HttpCode(HttpStatus.OK)
  @DocumentRoute({
    summary: 'Confirm the authenticator app with a code; returns the recovery codes',
    data: ref('RecoveryCodes'),
    statuses: { 401: 'INVALID_OTP: wrong code, or no enrolment started.', 409: 'CONFLICT: already enrolled.' },
  })
  confirmTotp(@CurrentUser() user: AuthUser, @Body() dto: ConfirmCodeDto, @Client() client: ClientInfo) {
    return this.totp.confirm(user, dto.code, client);
  }

  @Post('recovery-codes')
  @RequireFreshAuth()
  @HttpCode(HttpStatus.OK)
  @TakesNoBody()
  @DocumentRoute({
    summary: 'Make ten new recovery codes; the earlier ones stop working at once',
    data: ref('RecoveryCodes'),
    statuses: { 404: 'NOT_FOUND: no authenticator app is enrolled.' },
  })
  regenerateRecoveryCodes(@CurrentUser() user: AuthUser, @Client() client: ClientInfo) {
    return this.totp.regenerateRecoveryCodes(user, client);
  }

  /** Needs a fresh proof that includes a second factor (`amr` with `otp` or `mfa`). */
  @Delete('totp')
  @RequireFreshAuth()
  @TakesNoBody()
  @DocumentRoute({
    summary: 'Remove the authenticator app',
    data: empty,
    statuses: {
      401: 'INVALID_OTP or INVALID_CREDENTIALS.',
      403: 'REAUTHENTICATION_REQUIRED unless the re-authentication included a second factor (`amr` with `otp` or `mfa`).',
      404: 'NOT_FOUND: no authenticator app is enrolled.',
    },
  })
  disableTotp(@CurrentUser() user: AuthUser, @Client() client: ClientInfo) {
    return this.totp.disable(user, client);
  }
}
