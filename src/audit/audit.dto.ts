import { IsISO8601, IsOptional, IsString, IsUUID, MaxLength } from 'class-validator';
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

  /** Events this user did. */
  @IsOptional()
  @IsUUID()
  actor_id?: string;

  /** Events done to this object (a user's, role's or permission's id). */
  @IsOptional()
  @IsString()
  @MaxLength(255)
  target_id?: string;

  /** Events at or after this instant (ISO 8601). */
  @IsOptional()
  @IsISO8601({ strict: true })
  from?: string;

  /** Events at or before this instant (ISO 8601). */
  @IsOptional()
  @IsISO8601({ strict: true })
  to?: string;
}
