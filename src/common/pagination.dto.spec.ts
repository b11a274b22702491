// class-transformer's @Type reads design metadata, which the application's entry point loads.
import 'reflect-metadata';
import { plainToInstance } from 'class-transformer';
import { validateSync } from 'class-validator';
import { PageQuery, pageOf, pageOffset } from './pagination.dto.js';

const parse = (query: Record<string, string>) => {
  const dto = plainToInstance(PageQuery, query);
  return { dto, fields: validateSync(dto).map((error) => error.property) };
};

describe('PageQuery', () => {
  it('defaults to page 1 of 20', () => {
    const { dto, fields } = parse({});
    expect(fields).toEqual([]);
    expect({ page: dto.page, limit: dto.limit }).toEqual({ page: 1, limit: 20 });
  });

  it('reads numbers from the query string', () => {
    const { dto, fields } = parse({ page: '3', limit: '100' });
    expect(fields).toEqual([]);
    expect(pageOffset(dto)).toBe(200);
    expect(pageOf(dto, ['a'], 201)).toEqual({ items: ['a'], total: 201, page: 3, limit: 100 });
  });

  it.each([
    [{ page: '0' }, 'page'],
    [{ page: '100001' }, 'page'],
    [{ page: '1.5' }, 'page'],
    [{ page: 'abc' }, 'page'],
    [{ limit: '0' }, 'limit'],
    [{ limit: '101' }, 'limit'],
  ])('refuses %j', (query, field) => {
    expect(parse(query).fields).toEqual([field]);
  });
});
