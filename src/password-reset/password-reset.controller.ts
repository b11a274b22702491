import { Body, Controller, HttpCode, HttpStatus, Post } from '@nestjs/common';
import { Public } from '@auth-rbac/nest-guard';
import { ForgotPasswordDto, ResetPasswordDto } from './password-reset.dto.js';
import { PasswordResetService } from './password-reset.service.js';
import { Client, type ClientInfo } from '../common/client-info.js';
import { DocumentRoute, ref, empty } from '../common/route-doc.js';

@Controller('auth')
export class PasswordResetController {
  constructor(private readonly passwordReset: PasswordResetService) {}

  @Public()
  @Post('forgot-password')
  @HttpCode(HttpStatus.OK)
  @DocumentRoute({
    summary: 'Mail a password-reset link (same answer for any email)',
    data: ref('ForgotPasswordAnswer'),
  })
  forgotPassword(@Body() dto: ForgotPasswordDto, @Client() client: ClientInfo) {
    return this.passwordReset.requestReset(dto.email, client);
  }

  @Public()
  @Post('reset-password')
  @HttpCode(HttpStatus.OK)
  @DocumentRoute({ summary: 'Set a new password with a reset token', data: empty })
  resetPassword(@Body() dto: ResetPasswordDto, @Client() client: ClientInfo) {
    return this.passwordReset.reset(dto.token, dto.password, client);
  }
}
