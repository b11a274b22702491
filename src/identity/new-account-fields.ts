import { IsAccountEmail, IsAccountMobile, IsPersonName } from '../common/contact-fields.js';
import { UnlessAbsent } from '../common/unless-absent.js';
import { IsNewPassword } from './password-rules.js';

/** A new account's fields, as a person registering and an administrator creating one give them. */
export class NewAccountFields {
  @IsPersonName()
  name!: string;

  @IsAccountEmail()
  email!: string;

  @IsNewPassword()
  password!: string;

  // Optional means absent: `null` is a wrong type like any other (IsOptional would let it through).
  @UnlessAbsent()
  @IsAccountMobile()
  mobile?: string;
}
