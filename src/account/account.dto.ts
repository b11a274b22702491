import { IsIn, IsString, Length, Matches, ValidateIf } from 'class-validator';
import { UnlessAbsent } from '../common/unless-absent.js';
import { IsNewPassword, MatchesField } from '../core/passwords/password-rules.js';
import { IsAccountEmail, IsAccountMobile, IsPersonName } from '../common/contact-fields.js';

export class UpdateAccountDto {
  @IsPersonName()
  name!: string;
}

export class ChangePasswordDto {
  @IsString()
  @Length(1, 128)
  current_password!: string;

  @IsNewPassword()
  password!: string;

  @IsString()
  @MatchesField('password')
  password_confirmation!: string;
}

export class ChangeEmailDto {
  @IsAccountEmail()
  email!: string;
}

export class ConfirmEmailChangeDto {
  @IsString()
  @Length(1, 256)
  token!: string;
}

export class ChangeMobileDto {
  @IsAccountMobile()
  mobile!: string;
}

export class ConfirmCodeDto {
  @IsString()
  @Matches(/^\d{4,10}$/, { message: 'code must be a code of digits' })
  code!: string;
}

/** The proofs `POST /api/account/reauthenticate` takes besides the password. */
export const REAUTHENTICATION_METHODS = ['totp', 'recovery', 'sms'] as const;
export type ReauthenticationMethod = (typeof REAUTHENTICATION_METHODS)[number];

/**
 * One proof of presence: `{password}`, `{method: "totp" | "recovery", code}`, `{method: "sms"}`
 * (sends a code to the account's own mobile) then `{method: "sms", code}`.
 */
export class ReauthenticateDto {
  /** The current password; only without `method`. */
  @ValidateIf((dto: ReauthenticateDto) => dto.method === undefined || dto.password !== undefined)
  @IsString()
  @Length(1, 128)
  password?: string;

  @UnlessAbsent()
  @IsIn(REAUTHENTICATION_METHODS)
  method?: ReauthenticationMethod;

  /** Digits for an app or SMS code; a recovery code also has letters and a dash. */
  @ValidateIf((dto: ReauthenticateDto) => dto.method === 'totp' || dto.method === 'recovery' || dto.code !== undefined)
  @IsString()
  @Matches(/^[0-9A-Za-z-]{4,32}$/, { message: 'code must be a code of digits, or a recovery code' })
  code?: string;
}
