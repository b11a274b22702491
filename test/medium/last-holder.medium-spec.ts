import { UsersRepository } from '../../src/identity/users.repository.js';
import { UserRolesRepository } from '../../src/rbac/user-roles.repository.js';
import { RolesRepository } from '../../src/rbac/roles.repository.js';
import { assignRoles, insertRole, insertUser, useMediumDatabase } from './medium-database.js';

const HOUR = 3_600_000;

describe('the last enabled holder of a role, on a real database', () => {
  const fixture = useMediumDatabase();
  let users: UsersRepository;
  let userRoles: UserRolesRepository;
  let roles: RolesRepository;
  beforeAll(() => {
    users = new UsersRepository(fixture.db);
    userRoles = new UserRolesRepository();
    roles = new RolesRepository(fixture.db);
  });

  /** A new role (standing for `admin`, which the seeded accounts also hold) and `count` holders of it. */
  async function roleWithHolders(count: number, disabled: { disabledAt?: Date; disabledUntil?: Date | null }[] = []) {
    const role = await insertRole(fixture.db, ['users.view']);
    const holders: string[] = [];
    for (let i = 0; i < count; i++) {
      const userId = await insertUser(fixture.db, disabled[i] ?? {});
      await assignRoles(fixture.db, userId, [role.id]);
      holders.push(userId);
    }
    return { role, holders };
  }

  const others = (userId: string, roleName: string) =>
    userRoles.countOtherEnabledHolders(fixture.db.manager, userId, roleName);

  it('counts the other holders, never the user asked about, nor users without the role', async () => {
    const { role, holders } = await roleWithHolders(3);
    await insertUser(fixture.db);
    expect(await others(holders[0]!, role.name)).toBe(2);
    const outsider = await insertUser(fixture.db);
    expect(await others(outsider, role.name)).toBe(3);
  });

  it('leaves out holders disabled for good and those disabled until a later time', async () => {
    const { role, holders } = await roleWithHolders(3, [
      {},
      { disabledAt: new Date(), disabledUntil: null },
      { disabledAt: new Date(), disabledUntil: new Date(Date.now() + HOUR) },
    ]);
    expect(await others(holders[0]!, role.name)).toBe(0);
  });

  it('counts a holder whose disabling has ended by itself', async () => {
    const { role, holders } = await roleWithHolders(2, [
      {},
      { disabledAt: new Date(Date.now() - 2 * HOUR), disabledUntil: new Date(Date.now() - HOUR) },
    ]);
    expect(await others(holders[0]!, role.name)).toBe(1);
  });

  it('counts a holder of several roles once', async () => {
    const { role, holders } = await roleWithHolders(2);
    await assignRoles(fixture.db, holders[1]!, [(await insertRole(fixture.db, ['contents.view'])).id]);
    expect(await others(holders[0]!, role.name)).toBe(1);
  });

  it('follows a disabling and an enabling', async () => {
    const { role, holders } = await roleWithHolders(2);
    await users.setDisabled(fixture.db.manager, holders[1]!, { until: null, reason: null });
    expect(await others(holders[0]!, role.name)).toBe(0);
    await users.clearDisabled(fixture.db.manager, holders[1]!);
    expect(await others(holders[0]!, role.name)).toBe(1);
  });

  it('of two holders disabling themselves at once under the role row lock, exactly one is refused', async () => {
    const { role, holders } = await roleWithHolders(2);
    /** A disabling as the service runs it: the role's row locked, then the count, then the change. */
    const disable = (userId: string) =>
      fixture.db.transaction(async (manager) => {
        await roles.lockRoleByName(manager, role.name);
        if ((await userRoles.countOtherEnabledHolders(manager, userId, role.name)) === 0) return 'refused';
        await users.setDisabled(manager, userId, { until: null, reason: null });
        return 'disabled';
      });
    const outcomes = await Promise.all(holders.map(disable));
    expect([...outcomes].sort()).toEqual(['disabled', 'refused']);
    const [{ enabled }]: { enabled: number }[] = await fixture.db.query(
      `SELECT count(*)::int AS enabled FROM users WHERE id = ANY($1::uuid[]) AND disabled_at IS NULL`,
      [holders],
    );
    expect(enabled).toBe(1);
  });
});
