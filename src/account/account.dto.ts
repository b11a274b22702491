import { Type } from 'class-transformer';
import { IsIn, IsObject, IsString, Length, Matches, ValidateIf, ValidateNested } from 'class-validator';
import { UnlessAbsent } from '../common/unless-absent.js';
import { IsNewPassword, MatchesField } from '../identity/index.js';
import { IsAccountEmail, IsAccountMobile, IsPasskeyName, IsPersonName } from '../common/contact-fields.js';
import { AuthenticationResponseDto, RegistrationResponseDto } from '../common/webauthn-json.dto.js';

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
export const REAUTHENTICATION_METHODS = ['totp', 'recovery', 'sms', 'passkey'] as const;
export type ReauthenticationMethod = (typeof REAUTHENTICATION_METHODS)[number];

/**
 * One proof of presence: `{password}`, `{method: "totp" | "recovery", code}`, `{method: "sms"}`
 * (sends a code to the account's own mobile) then `{method: "sms", code}`, or
 * `{method: "passkey", assertion}` (an answer to `POST /account/reauthenticate/options`).
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

  /** With `method: "passkey"`: the `AuthenticationResponseJSON` for `POST /account/reauthenticate/options`. */
  @ValidateIf((dto: ReauthenticateDto) => dto.method === 'passkey' || dto.assertion !== undefined)
  @IsObject()
  @ValidateNested()
  @Type(() => AuthenticationResponseDto)
  assertion?: AuthenticationResponseDto;
}

/** `POST /account/passkeys`: the `RegistrationResponseJSON` itself, with an optional name beside its fields. */
export class RegisterPasskeyDto extends RegistrationResponseDto {
  @UnlessAbsent()
  @IsPasskeyName()
  name?: string;
}

export class RenamePasskeyDto {
  @IsPasskeyName()
  name!: string;
}
