import { AppException } from './app-exception.js';

/** PostgreSQL's SQLSTATE for a duplicate key. */
const UNIQUE_VIOLATION = '23505';

export type UniqueField = 'email' | 'mobile' | 'role_name' | 'permission_name';

/**
 * Constraint and index names (as the migrations create them) to the field they guard. The
 * constraint name is the only trustworthy part of the error: its detail holds the duplicated value,
 * and a value such as `mobile.user@example.com` may contain any word.
 */
const FIELD_OF_CONSTRAINT: Readonly<Record<string, UniqueField>> = {
  UQ_97672ac88f789774dd47f7c8be3: 'email',
  UQ_d376a9f93bba651f32a2c03a7d3: 'mobile',
  UQ_648e3f5447f725579d7d4ffdfb7: 'role_name',
  UQ_roles_name_folded: 'role_name',
  UQ_48ce552495d14eae9b187bb6716: 'permission_name',
};

/** The field a duplicate-key error is about, or null when the error is something else. */
export function uniqueViolationField(error: unknown): UniqueField | null {
  const { code, constraint } = (error ?? {}) as { code?: unknown; constraint?: unknown };
  if (code !== UNIQUE_VIOLATION || typeof constraint !== 'string') return null;
  return FIELD_OF_CONSTRAINT[constraint] ?? null;
}

/** The contract's 409 for a taken field. */
export function takenConflict(field: UniqueField): AppException {
  switch (field) {
    case 'email':
    case 'mobile':
      return new AppException('CONFLICT', `This ${field} is already registered.`, [
        { field, message: `${field} is already registered` },
      ]);
    case 'role_name':
      return new AppException('CONFLICT', 'A role with this name already exists.');
    case 'permission_name':
      return new AppException('CONFLICT', 'A permission with this name already exists.');
  }
}

/**
 * For `catch (error) { throw asConflict(error); }`: a duplicate of a known unique field becomes the
 * contract's 409; anything else, including a duplicate on a constraint not listed here, is returned
 * unchanged, so it stays an unexpected error rather than a guessed answer.
 */
export function asConflict(error: unknown): unknown {
  const field = uniqueViolationField(error);
  return field ? takenConflict(field) : error;
}
