import { IsBoolean, ValidateIf } from 'class-validator';

/** Absent means "leave unchanged"; null must still fail the type check, which IsOptional would skip. */
const UnlessAbsent = () => ValidateIf((_dto: object, value: unknown) => value !== undefined);

/**
 * Any of the two flags. An empty body is a no-op that answers the current settings, as an empty
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
}
