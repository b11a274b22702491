import { Transform } from 'class-transformer';
import {
  IsString,
  Length,
  MaxLength,
  MinLength,
  registerDecorator,
  ValidateIf,
  type ValidationArguments,
  type ValidationOptions,
} from 'class-validator';
import { IsAccountEmail, IsAccountMobile } from '../common/contact-fields.js';
import { IsNotCommonPassword, MatchesField } from './password-rules.js';

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
        validate: (_value: unknown, args: ValidationArguments) => (args.object as Record<string, unknown>)[field] === undefined,
      },
    });
}

export class RegisterDto {
  @IsString() @Transform(({ value }) => (typeof value === 'string' ? value.trim() : value)) @Length(1, 255)
  name!: string;

  @IsAccountEmail()
  email!: string;

  @IsString() @Length(8, 128) @IsNotCommonPassword()
  password!: string;

  @IsString() @MatchesField('password')
  password_confirmation!: string;

  // Optional means absent: `null` is a wrong type like any other (IsOptional would let it through).
  @ValidateIf((_dto: RegisterDto, value: unknown) => value !== undefined)
  @IsAccountMobile()
  mobile?: string;
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

  @IsString() @Length(8, 128)
  password!: string;
}

export class RefreshDto {
  // Optional: the refresh_token cookie is used when the body has none. `null` is a wrong type.
  @ValidateIf((_dto: RefreshDto, value: unknown) => value !== undefined)
  @IsString() @MinLength(1) @MaxLength(4096)
  refresh_token?: string;
}

export class ForgotPasswordDto {
  @IsAccountEmail()
  email!: string;
}

export class ResetPasswordDto {
  @IsString() @Length(1, 256)
  token!: string;

  @IsString() @Length(8, 128) @IsNotCommonPassword()
  password!: string;

  @IsString() @MatchesField('password')
  password_confirmation!: string;
}
