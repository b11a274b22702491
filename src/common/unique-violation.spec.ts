import { AppException } from './app-exception.js';
import { asConflict, uniqueViolationField } from './unique-violation.js';

/** What pg (and TypeORM's QueryFailedError, which copies its fields) carries for a duplicate key. */
const duplicate = (constraint: string, detail: string) =>
  Object.assign(new Error('duplicate key value violates unique constraint'), { code: '23505', constraint, detail });

describe('unique-violation translation', () => {
  it.each([
    ['UQ_97672ac88f789774dd47f7c8be3', 'email'],
    ['UQ_d376a9f93bba651f32a2c03a7d3', 'mobile'],
    ['UQ_648e3f5447f725579d7d4ffdfb7', 'role_name'],
    ['UQ_roles_name_folded', 'role_name'],
    ['UQ_48ce552495d14eae9b187bb6716', 'permission_name'],
  ])('reads the field from the constraint name %s', (constraint, field) => {
    expect(uniqueViolationField(duplicate(constraint, 'Key (x)=(y) already exists.'))).toBe(field);
  });

  it('answers email for a duplicate email whose value contains "mobile"', () => {
    const error = duplicate('UQ_97672ac88f789774dd47f7c8be3', 'Key (email)=(mobile.user@example.com) already exists.');
    const conflict = asConflict(error);
    expect(conflict).toBeInstanceOf(AppException);
    expect((conflict as AppException).getStatus()).toBe(409);
    expect((conflict as AppException).code).toBe('CONFLICT');
    expect((conflict as AppException).message).toBe('This email is already registered.');
    expect((conflict as AppException).details).toEqual([{ field: 'email', message: 'email is already registered' }]);
  });

  it('answers mobile for a duplicate mobile', () => {
    const conflict = asConflict(
      duplicate('UQ_d376a9f93bba651f32a2c03a7d3', 'Key (mobile)=(+4917612345678) already exists.'),
    );
    expect((conflict as AppException).message).toBe('This mobile is already registered.');
    expect((conflict as AppException).details).toEqual([{ field: 'mobile', message: 'mobile is already registered' }]);
  });

  it('names role and permission conflicts as the contract does', () => {
    expect((asConflict(duplicate('UQ_roles_name_folded', '')) as AppException).message).toBe(
      'A role with this name already exists.',
    );
    expect((asConflict(duplicate('UQ_48ce552495d14eae9b187bb6716', '')) as AppException).message).toBe(
      'A permission with this name already exists.',
    );
  });

  it('leaves a duplicate on an unlisted constraint, and every other error, unchanged', () => {
    const unlisted = duplicate('PK_23ed6f04fe43066df08379fd034', 'Key (user_id, role_id)=(a, b) already exists.');
    const other = Object.assign(new Error('deadlock detected'), { code: '40P01' });
    const noConstraint = Object.assign(new Error('duplicate'), { code: '23505' });
    for (const error of [unlisted, other, noConstraint, null, undefined, 'text']) {
      expect(asConflict(error)).toBe(error);
      expect(uniqueViolationField(error)).toBeNull();
    }
  });
});
