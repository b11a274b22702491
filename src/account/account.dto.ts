import { IsString, Length, Matches, MaxLength, ValidateIf } from 'class-validator';
import { IsNewPassword, MatchesField } from '../core/passwords/password-rules.js';
import { IsAccountEmail, IsAccountMobile, IsPasskeyName, IsPersonName } from '../common/contact-fields.js';
import { UnlessAbsent } from '../common/unless-absent.js';
import { RegistrationResponseDto } from '../common/webauthn-json.dto.js';

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

/** Turning the authenticator app off takes a current code or the password. */
export class DisableTotpDto {
  @ValidateIf((dto: DisableTotpDto) => dto.code !== undefined || dto.password === undefined)
  @IsString()
  @Matches(/^\d{6}$/, { message: 'code (6 digits) or password is required' })
  code?: string;

  @ValidateIf((dto: DisableTotpDto) => dto.password !== undefined)
  @IsString()
  @MaxLength(128)
  password?: string;
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
