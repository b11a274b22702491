import { Type } from 'class-transformer';
import { IsInt, IsOptional, Max, Min } from 'class-validator';

/** Past this page the OFFSET scan costs more than any honest client needs; a search narrows instead. */
export const MAX_PAGE = 100_000;
export const MAX_PAGE_SIZE = 100;
export const DEFAULT_PAGE_SIZE = 20;

/** `?page=1&limit=20` as the contract writes it; every admin list extends it with its own filters. */
export class PageQuery {
  @IsOptional()
  @Type(() => Number)
  @IsInt()
  @Min(1)
  @Max(MAX_PAGE)
  page = 1;

  @IsOptional()
  @Type(() => Number)
  @IsInt()
  @Min(1)
  @Max(MAX_PAGE_SIZE)
  limit = DEFAULT_PAGE_SIZE;
}

/** Rows to skip for the query's page. */
export const pageOffset = (query: PageQuery): number => (query.page - 1) * query.limit;

/** A page of a list: the contract's `{items, total}` plus the page asked for. */
export interface Page<T> {
  items: T[];
  total: number;
  page: number;
  limit: number;
}

export const pageOf = <T>(query: PageQuery, items: T[], total: number): Page<T> => ({
  items,
  total,
  page: query.page,
  limit: query.limit,
});
