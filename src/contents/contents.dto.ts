import { Transform, Type } from 'class-transformer';
import { IsInt, IsOptional, IsString, Length, Max, MaxLength, Min, ValidateIf } from 'class-validator';

export const TITLE_MAX_LENGTH = 255;
/** Well under the 16 KiB body limit, so a too-long body is answered by a rule that names it. */
export const BODY_MAX_LENGTH = 10_000;

const trim = ({ value }: { value: unknown }) => (typeof value === 'string' ? value.trim() : value);

/** Absent means "leave unchanged"; null must still fail the type check, which IsOptional would skip. */
const UnlessAbsent = () => ValidateIf((_dto: object, value: unknown) => value !== undefined);

export class CreateContentDto {
  @IsString()
  @Transform(trim)
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
  @Transform(trim)
  @Length(1, TITLE_MAX_LENGTH)
  title?: string;

  @UnlessAbsent()
  @IsString()
  @MaxLength(BODY_MAX_LENGTH)
  body?: string;
}

export class ListContentsQuery {
  @IsOptional()
  @Type(() => Number)
  @IsInt()
  @Min(1)
  @Max(1_000_000)
  page = 1;

  @IsOptional()
  @Type(() => Number)
  @IsInt()
  @Min(1)
  @Max(100)
  limit = 20;
}

export interface ContentResponse {
  id: string;
  title: string;
  body: string;
  author_id: string | null;
  created_at: Date;
  updated_at: Date;
}

export interface ContentListResponse {
  items: ContentResponse[];
  total: number;
  page: number;
  limit: number;
}
