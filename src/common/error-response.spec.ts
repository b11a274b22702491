import { Logger } from '@nestjs/common';
import { QueryFailedError } from 'typeorm';
import { toErrorResponse } from './error-response.js';

/** What pg and TypeORM throw when the database is away, and what they throw when it answers. */
describe('toErrorResponse and an unreachable database', () => {
  beforeAll(() => Logger.overrideLogger(false));
  afterAll(() => Logger.overrideLogger(true));

  const withCode = (message: string, code: string) => Object.assign(new Error(message), { code });

  it.each([
    ['a refused connection', withCode('connect ECONNREFUSED 127.0.0.1:5432', 'ECONNREFUSED')],
    ['a reset connection', withCode('read ECONNRESET', 'ECONNRESET')],
    ['a full pool that waited too long', new Error('timeout exceeded when trying to connect')],
    ['a connect timeout', new Error('Connection terminated due to connection timeout')],
    ['a connection lost mid-query', new Error('Connection terminated unexpectedly')],
    [
      'a client used after its connection failed',
      new Error('Client has encountered a connection error and is not queryable'),
    ],
    [
      'a server shutting down',
      new QueryFailedError('SELECT 1', [], withCode('terminating connection due to administrator command', '57P01')),
    ],
    ['a server not accepting connections yet', withCode('the database system is starting up', '57P03')],
  ])('answers 503 SERVICE_UNAVAILABLE for %s', (_label, error) => {
    const response = toErrorResponse(error, 'req-1');
    expect(response.status).toBe(503);
    expect(response.body.error.code).toBe('SERVICE_UNAVAILABLE');
    expect(JSON.stringify(response.body)).not.toMatch(/ECONN|5432|pg|terminat|queryable/i);
  });

  it('keeps a SQL error a 500 with the request id', () => {
    const error = new QueryFailedError(
      'INSERT ...',
      ['secret-hash'],
      withCode('duplicate key value violates unique constraint', '23505'),
    );
    const response = toErrorResponse(error, 'req-2');
    expect(response.status).toBe(500);
    expect(response.body.error).toEqual({
      code: 'INTERNAL_ERROR',
      message: 'An unexpected error occurred.',
      request_id: 'req-2',
    });
  });
});
