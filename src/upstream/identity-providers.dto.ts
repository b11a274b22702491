import { ArrayMaxSize, IsArray, IsBoolean, IsIn, IsString, Length, Matches, MaxLength } from 'class-validator';
import { IsRoleName } from '../common/contact-fields.js';
import { UnlessAbsent } from '../common/unless-absent.js';

/** A slug is part of the callback URL registered at the upstream: lower case, digits and dashes. */
export const SLUG_PATTERN = /^[a-z0-9][a-z0-9-]{0,39}$/;
/** A scope as RFC 6749 §3.3 allows it (printable ASCII without space, `"` or `\`). */
const SCOPE_PATTERN = /^[\x21\x23-\x5b\x5d-\x7e]{1,100}$/;

class OptionalProviderFields {
  /** oidc: the issuer whose discovery is read; github: a GitHub Enterprise Server's base URL (absent: github.com). */
  @UnlessAbsent()
  @IsString()
  @MaxLength(2000)
  issuer?: string;

  @UnlessAbsent()
  @IsArray()
  @ArrayMaxSize(20)
  @Matches(SCOPE_PATTERN, { each: true, message: 'each value of scopes must be a scope (printable, no space)' })
  scopes?: string[];

  @UnlessAbsent()
  @IsBoolean()
  trust_email?: boolean;

  @UnlessAbsent()
  @IsBoolean()
  allow_sign_up?: boolean;

  @UnlessAbsent()
  @IsBoolean()
  enabled?: boolean;
}

/** `POST /api/admin/identity-providers`: the contract's body. */
export class CreateIdentityProviderDto extends OptionalProviderFields {
  @IsString()
  @Matches(SLUG_PATTERN, { message: 'slug must be 1 to 40 lower-case letters, digits or dashes' })
  slug!: string;

  /** Shown on the button "Continue with <name>". */
  @IsRoleName()
  name!: string;

  @IsIn(['oidc', 'github'])
  type!: 'oidc' | 'github';

  @IsString()
  @Length(1, 255)
  client_id!: string;

  @IsString()
  @Length(1, 1000)
  client_secret!: string;
}

/** `PUT /api/admin/identity-providers/{slug}`: the fields given replace the provider's; slug and type stay. */
export class UpdateIdentityProviderDto extends OptionalProviderFields {
  @UnlessAbsent()
  @IsRoleName()
  name?: string;

  @UnlessAbsent()
  @IsString()
  @Length(1, 255)
  client_id?: string;

  @UnlessAbsent()
  @IsString()
  @Length(1, 1000)
  client_secret?: string;
}
