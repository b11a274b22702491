import { ArrayMaxSize, ArrayUnique, IsArray, IsString, IsUUID, Length, Matches, MaxLength } from 'class-validator';
import { IsRoleName, Trimmed } from '../common/contact-fields.js';
import { UnlessAbsent } from '../common/unless-absent.js';

/** `resource.action`: lower-case words of letters, digits, `_` or `-`. */
export const PERMISSION_NAME = /^[a-z][a-z0-9_-]*\.[a-z][a-z0-9_-]*$/;

/** The describing fields roles and permissions share, in create and update alike. */
class DescriptionFields {
  @UnlessAbsent()
  @IsString()
  @MaxLength(255)
  display_name?: string;

  @UnlessAbsent()
  @IsString()
  @MaxLength(10_000)
  description?: string;
}

/** What a role body may carry besides its name. */
class RoleFields extends DescriptionFields {
  /** The role's whole permission set (an update replaces it). */
  @UnlessAbsent()
  @IsArray()
  @ArrayMaxSize(1000)
  @ArrayUnique()
  @IsUUID('all', { each: true })
  permission_ids?: string[];
}

export class CreateRoleDto extends RoleFields {
  @IsRoleName()
  name!: string;
}

export class UpdateRoleDto extends RoleFields {
  @UnlessAbsent()
  @IsRoleName()
  name?: string;
}

const PERMISSION_NAME_MESSAGE = 'name must have the form resource.action, e.g. reports.view';

/** What a permission body may carry besides its name. */
class PermissionFields extends DescriptionFields {
  @UnlessAbsent()
  @IsString()
  @MaxLength(255)
  group_name?: string;
}

export class CreatePermissionDto extends PermissionFields {
  @Trimmed()
  @IsString()
  @Length(3, 255)
  @Matches(PERMISSION_NAME, { message: PERMISSION_NAME_MESSAGE })
  name!: string;
}

export class UpdatePermissionDto extends PermissionFields {
  @UnlessAbsent()
  @Trimmed()
  @IsString()
  @Length(3, 255)
  @Matches(PERMISSION_NAME, { message: PERMISSION_NAME_MESSAGE })
  name?: string;
}

/** Roles to give a service client. */
export class ClientRoleIdsDto {
  @IsArray()
  @ArrayMaxSize(100)
  @ArrayUnique()
  @IsUUID('all', { each: true })
  role_ids!: string[];
}
