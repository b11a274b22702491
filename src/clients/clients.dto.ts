import { ArrayMaxSize, IsArray, IsBoolean, IsIn, IsOptional, IsString, Length, MaxLength } from 'class-validator';
import { UnlessAbsent } from '../common/unless-absent.js';
import { CLIENT_NAME_MAX_LENGTH, MAX_URIS } from './client-rules.js';
import { CLIENT_URI_MAX_LENGTH } from './redirect-uris.js';

/**
 * The fields a creation and an edit share, each optional. Each URI's rules (the contract's
 * "Redirect URIs") are checked by the registry, which answers 400 VALIDATION_FAILED naming the
 * URI's place in its list.
 */
class OptionalClientFields {
  @UnlessAbsent()
  @IsArray()
  @ArrayMaxSize(MAX_URIS)
  @IsString({ each: true })
  @MaxLength(CLIENT_URI_MAX_LENGTH, { each: true })
  post_logout_redirect_uris?: string[];

  @UnlessAbsent()
  @IsArray()
  @ArrayMaxSize(3)
  @IsString({ each: true })
  @MaxLength(32, { each: true })
  grant_types?: string[];

  @UnlessAbsent()
  @IsBoolean()
  first_party?: boolean;

  /** null: none (an edit removes it). */
  @IsOptional()
  @IsString()
  @MaxLength(CLIENT_URI_MAX_LENGTH)
  backchannel_logout_uri?: string | null;
}

/** `POST /api/admin/clients`: the contract's body; `client_id` is generated when left out. */
export class CreateClientDto extends OptionalClientFields {
  @UnlessAbsent()
  @IsString()
  @MaxLength(100)
  client_id?: string;

  @IsString()
  @Length(1, CLIENT_NAME_MAX_LENGTH)
  name!: string;

  @IsIn(['confidential', 'public'])
  type!: 'confidential' | 'public';

  @IsArray()
  @ArrayMaxSize(MAX_URIS)
  @IsString({ each: true })
  @MaxLength(CLIENT_URI_MAX_LENGTH, { each: true })
  redirect_uris!: string[];
}

/** `PUT /api/admin/clients/{client_id}`: the fields given replace the client's; the id and the type stay. */
export class UpdateClientDto extends OptionalClientFields {
  @UnlessAbsent()
  @IsString()
  @Length(1, CLIENT_NAME_MAX_LENGTH)
  name?: string;

  @UnlessAbsent()
  @IsArray()
  @ArrayMaxSize(MAX_URIS)
  @IsString({ each: true })
  @MaxLength(CLIENT_URI_MAX_LENGTH, { each: true })
  redirect_uris?: string[];
}
