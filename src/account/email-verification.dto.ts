import { IsString, Length } from 'class-validator';
import { IsAccountEmail } from '../common/contact-fields.js';

export class VerifyEmailDto {
  @IsString()
  @Length(1, 256)
  token!: string;
}

export class ResendVerificationDto {
  @IsAccountEmail()
  email!: string;
}
