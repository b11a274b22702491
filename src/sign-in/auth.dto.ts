import {
  IsString,
  MaxLength,
  MinLength,
  registerDecorator,
  ValidateIf,
  type ValidationArguments,
  type ValidationOptions,
} from 'class-validator';
import { IsAccountEmail, IsAccountMobile } from '../common/contact-fields.js';
import { UnlessAbsent } from '../common/unless-absent.js';
import { MatchesField, PasswordLength, NewAccountFields } from '../identity/index.js';

/**
 * The property must be absent when `field` is present. A login names its account one way only:
 * with both, the service would silently pick one and ignore the other.
 */
function IsAbsentWith(field: string, options?: ValidationOptions): PropertyDecorator {
  return (target, propertyName) =>
    registerDecorator({
      name: 'isAbsentWith',
      target: target.constructor,
      propertyName: propertyName as string,
      constraints: [field],
      options,
      validator: {
        validate: (_value: unknown, args: ValidationArguments) =>
          (args.object as Record<string, unknown>)[field] === undefined,
      },
    });
}

export class RegisterDto extends NewAccountFields {
  @IsString()
  @MatchesField('password')
  password_confirmation!: string;
}

export class LoginDto {
  // Exactly one of email and mobile.
  @ValidateIf((dto: LoginDto) => dto.email !== undefined || dto.mobile === undefined)
  @IsAccountEmail({ message: 'exactly one of email or mobile is required; email must be a valid address' })
  email?: string;

  @ValidateIf((dto: LoginDto) => dto.mobile !== undefined || dto.email === undefined)
  @IsAbsentWith('email', { message: 'exactly one of email or mobile is required, not both' })
  @IsAccountMobile({ message: 'exactly one of email or mobile is required' })
  mobile?: string;

  @IsString()
  @PasswordLength()
  password!: string;
}

export class RefreshDto {
  // Optional: the refresh_token cookie is used when the body has none. `null` is a wrong type.
  @UnlessAbsent()
  @IsString()
  @MinLength(1)
  @MaxLength(4096)
  refresh_token?: string;
}

/** `POST /auth/passkey/options`: an optional email, accepted and not read: the options are the same for every input. */
export class PasskeyOptionsDto {
  @UnlessAbsent()
  @IsAccountEmail()
  email?: string;
}
