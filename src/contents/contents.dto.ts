import { IsString, Length, MaxLength } from 'class-validator';
import { Trimmed } from '../common/contact-fields.js';
import { PageQuery, type Page } from '../common/pagination.dto.js';
import { UnlessAbsent } from '../common/unless-absent.js';

export const TITLE_MAX_LENGTH = 255;
/** Well under the 16 KiB body limit, so a too-long body is answered by a rule that names it. */
export const BODY_MAX_LENGTH = 10_000;

export class CreateContentDto {
  @IsString()
  @Trimmed()
  @Length(1, TITLE_MAX_LENGTH)
  title!: string;

  @IsString()
  @MaxLength(BODY_MAX_LENGTH)
  body!: string;
}

/**
 * Any of title and body. An empty body is a no-op that answers the content unchanged, as an
 * empty JSON merge patch is; unknown fields are refused, so a misspelt field cannot cause it.
 */
export class UpdateContentDto {
  @UnlessAbsent()
  @IsString()
  @Trimmed()
  @Length(1, TITLE_MAX_LENGTH)
  title?: string;

  @UnlessAbsent()
  @IsString()
  @MaxLength(BODY_MAX_LENGTH)
  body?: string;
}

export class ListContentsQuery extends PageQuery {}

export interface ContentResponse {
  id: string;
  title: string;
  body: string;
  author_id: string | null;
  created_at: Date;
  updated_at: Date;
}

export type ContentListResponse = Page<ContentResponse>;
