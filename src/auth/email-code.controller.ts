import { Body, Controller, HttpCode, HttpStatus, Post, Req, Res } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { Public } from '@auth-rbac/nest-guard';
import { AppConfig } from '../config/app-config.js';
import { setAuthCookies } from '../core/sessions/auth-cookies.js';
import { clientOf } from '../core/sessions/client-info.js';
import { EmailCodeRequestDto, VerifyEmailCodeDto } from './auth.dto.js';
import { EmailCodeService } from './email-code.service.js';

/** Sign-in by a code mailed to the account's address (the `email_code` settings flag). */
@Controller('auth')
export class EmailCodeController {
  constructor(
    private readonly emailCodes: EmailCodeService,
    private readonly config: AppConfig,
  ) {}

  @Public()
  @Post('email-code')
  @HttpCode(HttpStatus.OK)
  send(@Body() dto: EmailCodeRequestDto, @Req() request: FastifyRequest) {
    return this.emailCodes.send(dto.email, clientOf(request));
  }

  @Public()
  @Post('verify-email-code')
  @HttpCode(HttpStatus.OK)
  async verify(
    @Body() dto: VerifyEmailCodeDto,
    @Req() request: FastifyRequest,
    @Res({ passthrough: true }) reply: FastifyReply,
  ) {
    const outcome = await this.emailCodes.verify(dto.email, dto.code, clientOf(request));
    // A two-factor challenge carries a temp token only: no session, no cookies yet.
    if ('challenge' in outcome) return outcome.challenge;
    setAuthCookies(reply, outcome.tokens, this.config);
    return outcome.response;
  }
}
