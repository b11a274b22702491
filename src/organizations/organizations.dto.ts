import {
  ArrayMaxSize,
  ArrayUnique,
  IsArray,
  IsOptional,
  IsString,
  IsUUID,
  Length,
  Matches,
  MaxLength,
} from 'class-validator';
import { IsAccountEmail, Trimmed } from '../common/contact-fields.js';
import { PageQuery } from '../common/pagination.dto.js';
import { UnlessAbsent } from '../common/unless-absent.js';

/** 3 to 63 of a-z, 0-9 and `-`, taken as written (upper case is refused, not folded). */
export const SLUG = /^[a-z0-9-]{3,63}$/;
const SLUG_MESSAGE = 'slug must be 3 to 63 of a-z, 0-9 and -';

class RoleIds {
  @IsArray()
  @ArrayMaxSize(100)
  @ArrayUnique()
  @IsUUID('all', { each: true })
  role_ids!: string[];
}

export class CreateOrganizationDto {
  @IsString()
  @Matches(SLUG, { message: SLUG_MESSAGE })
  slug!: string;

  @IsString()
  @Trimmed()
  @Length(1, 255)
  name!: string;
}

export class UpdateOrganizationDto {
  @UnlessAbsent()
  @IsString()
  @Matches(SLUG, { message: SLUG_MESSAGE })
  slug?: string;

  @UnlessAbsent()
  @IsString()
  @Trimmed()
  @Length(1, 255)
  name?: string;
}

export class MemberRolesDto extends RoleIds {}

export class AddMemberDto extends RoleIds {
  @IsUUID('all')
  user_id!: string;
}

export class InviteDto extends RoleIds {
  @IsAccountEmail()
  email!: string;
}

export class AcceptInvitationDto {
  @IsString()
  @Length(1, 512)
  token!: string;
}

export class OrganizationTokenDto {
  @IsUUID('all')
  organization_id!: string;
}

/** The administrators' list: pages, and a fragment of the slug or the name. */
export class ListOrganizationsQuery extends PageQuery {
  @IsOptional()
  @IsString()
  @MaxLength(255)
  search?: string;
}
