import { IsString, Matches, MaxLength } from 'class-validator';
import { AppException } from '../common/app-exception.js';
import { IsAccountMobile } from '../common/contact-fields.js';


export class SendOtpDto {
  @IsAccountMobile()
  mobile!: string;
}

export class VerifyOtpDto extends SendOtpDto {
  /** OTP_LENGTH digits (6 by default); the length itself is checked against the configuration. */
  @IsString() @Matches(/^\d{4,10}$/, { message: 'otp must be a code of digits' })
  otp!: string;
}

export class VerifyTwoFactorDto {
  @IsString() @MaxLength(4096)
  temp_token!: string;

  @IsString() @Matches(/^\d{4,10}$/, { message: 'code must be a code of digits' })
  code!: string;
}

/** A code of the wrong length is a malformed request, not a wrong guess: it costs no attempt. */
export function assertCodeLength(code: string, length: number, field: 'otp' | 'code'): void {
  if (code.length !== length) {
    throw new AppException('VALIDATION_FAILED', 'The request is invalid.', [{ field, message: `${field} must be exactly ${length} digits` }]);
  }
}
