import { Type } from 'class-transformer';
import {
  ArrayMaxSize,
  ArrayUnique,
  IsArray,
  IsInt,
  IsOptional,
  IsString,
  IsUUID,
  Max,
  MaxLength,
  Min,
} from 'class-validator';
import { IsNewPassword } from '../core/passwords/password-rules.js';
import { IsAccountEmail, IsAccountMobile, IsPersonName } from '../common/contact-fields.js';
import { UnlessAbsent } from '../common/unless-absent.js';

export class ListUsersQuery {
  @IsOptional()
  @Type(() => Number)
  @IsInt()
  @Min(1)
  @Max(100_000)
  page = 1;

  @IsOptional()
  @Type(() => Number)
  @IsInt()
  @Min(1)
  @Max(100)
  limit = 20;

  @IsOptional()
  @IsString()
  @MaxLength(255)
  search?: string;
}

export class CreateUserDto {
  @IsPersonName()
  name!: string;

  @IsAccountEmail()
  email!: string;

  @IsNewPassword()
  password!: string;

  @UnlessAbsent()
  @IsAccountMobile()
  mobile?: string;
}

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
