import { Body, Controller, HttpCode, HttpStatus, Post, Req, Res } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { setAuthCookies } from '../core/sessions/auth-cookies.js';
import { clientOf } from '../core/sessions/client-info.js';
import { Public } from '@auth-rbac/nest-guard';
import type { IssuedSession, TokenPairResponse } from '../core/sessions/session.service.js';
import { AppConfig } from '../config/app-config.js';
import { MobileOtpService } from './mobile-otp.service.js';
import { SendOtpDto, VerifyOtpDto, VerifyTwoFactorDto } from './otp.dto.js';
import { TwoFactorService } from '../core/second-factor/two-factor.service.js';

@Controller('auth')
@Public()
export class OtpController {
  constructor(
    private readonly mobileOtp: MobileOtpService,
    private readonly twoFactor: TwoFactorService,
    private readonly config: AppConfig,
  ) {}

  @Post('send-otp')
  @HttpCode(HttpStatus.OK)
  sendOtp(@Body() dto: SendOtpDto, @Req() request: FastifyRequest) {
    return this.mobileOtp.send(dto.mobile, clientOf(request));
  }

  @Post('verify-otp')
  @HttpCode(HttpStatus.OK)
  async verifyOtp(
    @Body() dto: VerifyOtpDto,
    @Req() request: FastifyRequest,
    @Res({ passthrough: true }) reply: FastifyReply,
  ) {
    const outcome = await this.mobileOtp.verify(dto.mobile, dto.otp, clientOf(request));
    // An account with a second factor gets a challenge (a temp token only): no session, no cookies yet.
    return 'challenge' in outcome ? outcome.challenge : this.withCookies(reply, outcome);
  }

  @Post('otp/verify-2fa')
  @HttpCode(HttpStatus.OK)
  async verifyTwoFactor(
    @Body() dto: VerifyTwoFactorDto,
    @Req() request: FastifyRequest,
    @Res({ passthrough: true }) reply: FastifyReply,
  ) {
    return this.withCookies(
      reply,
      await this.twoFactor.verify(dto.temp_token, dto.code, clientOf(request), dto.method),
    );
  }

  private withCookies(reply: FastifyReply, issued: IssuedSession): TokenPairResponse {
    setAuthCookies(reply, issued.tokens, this.config);
    return issued.response;
  }
}
