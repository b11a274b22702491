import { IsString, Length } from 'class-validator';
import { IsAccountEmail } from '../common/contact-fields.js';
import { IsNewPassword, MatchesField } from '../identity/index.js';

export class ForgotPasswordDto {
  @IsAccountEmail()
  email!: string;
}

export class ResetPasswordDto {
  @IsString()
  @Length(1, 256)
  token!: string;

  @IsNewPassword()
  password!: string;

  @IsString()
  @MatchesField('password')
  password_confirmation!: string;
}
