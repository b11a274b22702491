import { Body, Controller, HttpCode, HttpStatus, Post } from '@nestjs/common';
import { Public } from '@auth-rbac/nest-guard';
import { ResendVerificationDto, VerifyEmailDto } from './email-verification.dto.js';
import { EmailVerificationService } from './email-verification.service.js';
import { Client, type ClientInfo } from '../common/client-info.js';
import { DocumentRoute, ref, empty } from '../common/route-doc.js';

@Controller('auth')
export class EmailVerificationController {
  constructor(private readonly verification: EmailVerificationService) {}

  @Public()
  @Post('verify-email')
  @HttpCode(HttpStatus.OK)
  @DocumentRoute({
    summary: 'Verify your email address with the token of a verification link',
    data: empty,
    statuses: {
      400: 'CONFIRMATION_TOKEN_INVALID: unknown, expired or used link, or one mailed to an address the account no longer has.',
    },
  })
  verifyEmail(@Body() dto: VerifyEmailDto, @Client() client: ClientInfo) {
    return this.verification.verify(dto.token, client);
  }

  @Public()
  @Post('verify-email/resend')
  @HttpCode(HttpStatus.OK)
  @DocumentRoute({
    summary: 'Mail a new verification link (same answer for any email)',
    data: ref('ForgotPasswordAnswer'),
  })
  resendVerification(@Body() dto: ResendVerificationDto, @Client() client: ClientInfo) {
    return this.verification.resend(dto.email, client);
  }
}
