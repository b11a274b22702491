import { Body, Controller, HttpCode, HttpStatus, Post } from '@nestjs/common';
import { Public } from '@auth-rbac/nest-guard';
import { IssuesSession } from '../sessions/index.js';
import { EmailCodeRequestDto, VerifyEmailCodeDto } from './email-code.dto.js';
import { EmailCodeService } from './email-code.service.js';
import { Client, type ClientInfo } from '../common/client-info.js';
import { DocumentRoute, ref, tokensOr } from '../common/route-doc.js';

/** Sign-in by a code mailed to the account's address (the `email_code` settings flag). */
@Controller('auth')
export class EmailCodeController {
  constructor(private readonly emailCodes: EmailCodeService) {}

  @Public()
  @Post('email-code')
  @HttpCode(HttpStatus.OK)
  @DocumentRoute({
    summary: 'Mail a sign-in code to an email (same answer for any email)',
    data: ref('OtpSent'),
    statuses: { 403: 'LOGIN_METHOD_DISABLED: the email_code flag is off.' },
  })
  send(@Body() dto: EmailCodeRequestDto, @Client() client: ClientInfo) {
    return this.emailCodes.send(dto.email, client);
  }

  @Public()
  @Post('verify-email-code')
  @HttpCode(HttpStatus.OK)
  @IssuesSession()
  @DocumentRoute({
    summary: 'Sign in with an email and the code mailed to it',
    data: tokensOr(ref('TwoFactorChallenge')),
    statuses: {
      401: 'INVALID_OTP (with attempts_remaining), OTP_EXPIRED or OTP_ATTEMPTS_EXCEEDED.',
      403: 'LOGIN_METHOD_DISABLED (flag off, or a privileged account without a second factor); ACCOUNT_DISABLED after a right code.',
    },
  })
  verify(@Body() dto: VerifyEmailCodeDto, @Client() client: ClientInfo) {
    return this.emailCodes.verify(dto.email, dto.code, client);
  }
}
