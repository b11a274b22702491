import { IsBoolean } from 'class-validator';
import { UnlessAbsent } from '../common/unless-absent.js';

/**
 * Any of the three flags. An empty body is a no-op that answers the current settings, as an empty
 * JSON merge patch is: a misspelt field cannot make a body empty by accident, because unknown
 * fields are refused with 400.
 */
export class UpdateSettingsDto {
  @UnlessAbsent()
  @IsBoolean()
  email_password?: boolean;

  @UnlessAbsent()
  @IsBoolean()
  mobile_otp?: boolean;

  /** Sign-in by a code mailed to the account's address (`POST /api/auth/email-code`). */
  @UnlessAbsent()
  @IsBoolean()
  email_code?: boolean;
}
