import { AppException } from '../common/app-exception.js';

export function unknownIds(field: string, ids: string[]): AppException {
  return new AppException(
    'VALIDATION_FAILED',
    `Unknown ids in ${field}.`,
    ids.map((id) => ({ field, message: `no such id: ${id}` })),
  );
}

export function systemProtected(what: 'role' | 'permission', action: 'deleted' | 'renamed'): AppException {
  return new AppException('SYSTEM_PROTECTED', `A system ${what} cannot be ${action}.`);
}

export function notFound(what: string): AppException {
  return new AppException('NOT_FOUND', `${what} not found.`);
}
