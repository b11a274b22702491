import { IsOptional, IsString, IsUUID, MaxLength } from 'class-validator';
import { PageQuery } from '../common/pagination.dto.js';

export class ListAuditEventsQuery extends PageQuery {
  /** Events the user did or that were done to them. */
  @IsOptional()
  @IsUUID()
  user_id?: string;

  @IsOptional()
  @IsString()
  @MaxLength(64)
  type?: string;
}
