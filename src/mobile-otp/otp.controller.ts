import { Body, Controller, HttpCode, HttpStatus, Post } from '@nestjs/common';
import { IssuesSession } from '../sessions/index.js';
import { Public } from '@auth-rbac/nest-guard';
import { MobileOtpService } from './mobile-otp.service.js';
import { SendOtpDto, SendTwoFactorSmsDto, VerifyOtpDto, VerifyTwoFactorDto } from './otp.dto.js';
import { TwoFactorService } from '../second-factor/index.js';
import type { AuthenticationResponseJSON } from '@simplewebauthn/server';
import { Client, type ClientInfo } from '../common/client-info.js';
import { DocumentRoute, ref, tokensOr } from '../common/route-doc.js';

@Controller('auth')
@Public()
export class OtpController {
  constructor(
    private readonly mobileOtp: MobileOtpService,
    private readonly twoFactor: TwoFactorService,
  ) {}

  @Post('send-otp')
  @HttpCode(HttpStatus.OK)
  @DocumentRoute({
    summary: 'Text a sign-in code to a mobile (same answer for any mobile)',
    data: ref('OtpSent'),
    statuses: { 403: 'LOGIN_METHOD_DISABLED: sign-in by mobile code is off.' },
  })
  sendOtp(@Body() dto: SendOtpDto, @Client() client: ClientInfo) {
    return this.mobileOtp.send(dto.mobile, client);
  }

  @Post('verify-otp')
  @HttpCode(HttpStatus.OK)
  @IssuesSession()
  @DocumentRoute({
    summary: 'Sign in with a mobile and the code texted to it',
    data: tokensOr(ref('TwoFactorChallenge')),
    statuses: {
      401: 'INVALID_OTP, OTP_EXPIRED or OTP_ATTEMPTS_EXCEEDED.',
      403: 'LOGIN_METHOD_DISABLED: SMS sign-in is off, or a privileged account without a second factor; ACCOUNT_DISABLED after a right code.',
    },
  })
  verifyOtp(@Body() dto: VerifyOtpDto, @Client() client: ClientInfo) {
    return this.mobileOtp.verify(dto.mobile, dto.otp, client);
  }

  @Post('otp/send-2fa')
  @HttpCode(HttpStatus.OK)
  @DocumentRoute({
    summary: "Text the second factor's code to the account's own mobile (a challenge that offers sms)",
    data: ref('TwoFactorSmsSent'),
    statuses: {
      400: 'VALIDATION_FAILED: this sign-in offers no SMS code.',
      401: 'UNAUTHENTICATED (bad temp token), OTP_EXPIRED or OTP_ATTEMPTS_EXCEEDED (the challenge is over).',
      429: 'RATE_LIMITED: the account is locked, or this temp token already asked for 3 codes.',
    },
  })
  sendTwoFactorSms(@Body() dto: SendTwoFactorSmsDto) {
    return this.twoFactor.sendSms(dto.temp_token);
  }

  @Post('otp/verify-2fa')
  @HttpCode(HttpStatus.OK)
  @IssuesSession()
  @DocumentRoute({
    summary: 'Complete a sign-in with its second factor (method sms, totp or recovery)',
    data: ref('TokenPair'),
    statuses: {
      401: 'UNAUTHENTICATED (bad temp token), INVALID_OTP (a wrong code or passkey answer), OTP_EXPIRED or OTP_ATTEMPTS_EXCEEDED.',
      403: 'ACCOUNT_DISABLED after a right code.',
    },
  })
  verifyTwoFactor(@Body() dto: VerifyTwoFactorDto, @Client() client: ClientInfo) {
    return this.twoFactor.verify(
      dto.temp_token,
      { code: dto.code, assertion: dto.assertion as AuthenticationResponseJSON | undefined },
      client,
      dto.method,
    );
  }
}
