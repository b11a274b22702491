import {
  ArrayMaxSize,
  ArrayUnique,
  IsArray,
  IsISO8601,
  IsOptional,
  IsString,
  IsUUID,
  Matches,
  MaxLength,
} from 'class-validator';
import { NewAccountFields, IsNewPassword } from '../identity/index.js';
import { IsAccountEmail, IsAccountMobile, IsPersonName } from '../common/contact-fields.js';
import { PageQuery } from '../common/pagination.dto.js';
import { UnlessAbsent } from '../common/unless-absent.js';

export class ListUsersQuery extends PageQuery {
  @IsOptional()
  @IsString()
  @MaxLength(255)
  search?: string;
}

/** The fields of registration, without the confirmation an administrator does not type twice. */
export class CreateUserDto extends NewAccountFields {}

/** Optional fields may be left out; `null` is a wrong type (UnlessAbsent), except where it means "remove". */
export class UpdateUserDto {
  @UnlessAbsent()
  @IsPersonName()
  name?: string;

  @UnlessAbsent()
  @IsAccountEmail()
  email?: string;

  /** `null` removes the mobile number. */
  @IsOptional()
  @IsAccountMobile()
  mobile?: string | null;

  /** Setting a password signs the user out everywhere. */
  @UnlessAbsent()
  @IsNewPassword()
  password?: string;
}

export class RoleIdsDto {
  @IsArray()
  @ArrayMaxSize(100)
  @ArrayUnique()
  @IsUUID('all', { each: true })
  role_ids!: string[];
}

export class DisableUserDto {
  /** Shown to administrators only, never to the account holder. */
  @UnlessAbsent()
  @IsString()
  @MaxLength(255)
  // No control characters: the reason is shown in the console and written to the log.
  @Matches(/^[^\p{Cc}]*$/u, { message: 'reason must not contain control characters' })
  reason?: string;

  /** ISO 8601 with a date and a time; in the future. The disabling ends by itself then. */
  @UnlessAbsent()
  @IsISO8601({ strict: true, strictSeparator: true })
  @Matches(/T/, { message: 'until must be an ISO 8601 date and time' })
  until?: string;
}
