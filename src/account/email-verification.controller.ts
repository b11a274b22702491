import { Body, Controller, HttpCode, HttpStatus, Post } from '@nestjs/common';
import { Public } from '@auth-rbac/nest-guard';
import { ResendVerificationDto, VerifyEmailDto } from './email-verification.dto.js';
import { EmailVerificationService } from './email-verification.service.js';
import { Client, type ClientInfo } from '../common/client-info.js';

@Controller('auth')
export class EmailVerificationController {
  constructor(private readonly verification: EmailVerificationService) {}

  @Public()
  @Post('verify-email')
  @HttpCode(HttpStatus.OK)
  verifyEmail(@Body() dto: VerifyEmailDto, @Client() client: ClientInfo) {
    return this.verification.verify(dto.token, client);
  }

  @Public()
  @Post('verify-email/resend')
  @HttpCode(HttpStatus.OK)
  resendVerification(@Body() dto: ResendVerificationDto, @Client() client: ClientInfo) {
    return this.verification.resend(dto.email, client);
  }
}
