import { IsString, Matches } from 'class-validator';
import { IsAccountEmail } from '../common/contact-fields.js';

export class EmailCodeRequestDto {
  @IsAccountEmail()
  email!: string;
}

export class VerifyEmailCodeDto {
  @IsAccountEmail()
  email!: string;

  /** OTP_LENGTH digits; the length itself is checked against the configuration. */
  @IsString()
  @Matches(/^\d{4,10}$/, { message: 'code must be a code of digits' })
  code!: string;
}
