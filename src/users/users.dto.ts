import { ArrayMaxSize, ArrayUnique, IsArray, IsOptional, IsString, IsUUID, MaxLength } from 'class-validator';
import { NewAccountFields } from '../core/users/new-account-fields.js';
import { IsNewPassword } from '../core/passwords/password-rules.js';
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
