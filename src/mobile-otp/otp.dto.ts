import { Type } from 'class-transformer';
import { IsIn, IsObject, IsString, Matches, MaxLength, ValidateIf, ValidateNested } from 'class-validator';
import { AuthenticationResponseDto } from '../common/webauthn-json.dto.js';
import { UnlessAbsent } from '../common/unless-absent.js';
import { IsAccountMobile } from '../common/contact-fields.js';

export class SendOtpDto {
  @IsAccountMobile()
  mobile!: string;
}

export class VerifyOtpDto extends SendOtpDto {
  /** OTP_LENGTH digits (6 by default); the length itself is checked against the configuration. */
  @IsString()
  @Matches(/^\d{4,10}$/, { message: 'otp must be a code of digits' })
  otp!: string;
}

export class SendTwoFactorSmsDto {
  @IsString()
  @MaxLength(4096)
  temp_token!: string;
}

export class VerifyTwoFactorDto {
  @IsString()
  @MaxLength(4096)
  temp_token!: string;

  /** Digits for an SMS or authenticator-app code; a recovery code also has letters and a dash. Not with a passkey. */
  @ValidateIf((dto: VerifyTwoFactorDto) => dto.method !== 'passkey' || dto.code !== undefined)
  @IsString()
  @Matches(/^[0-9A-Za-z-]{4,32}$/, { message: 'code must be a code of digits, or a recovery code' })
  code?: string;

  /** Which second factor answers; absent, the app when the account has one, else SMS. */
  @UnlessAbsent()
  @IsIn(['sms', 'totp', 'recovery', 'passkey'])
  method?: 'sms' | 'totp' | 'recovery' | 'passkey';

  /** With `method: "passkey"`: the `AuthenticationResponseJSON` for the challenge's `passkey_options`. */
  @ValidateIf((dto: VerifyTwoFactorDto) => dto.method === 'passkey' || dto.assertion !== undefined)
  @IsObject()
  @ValidateNested()
  @Type(() => AuthenticationResponseDto)
  assertion?: AuthenticationResponseDto;
}
