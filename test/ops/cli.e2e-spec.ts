import { expectOneLineFailure, runCli } from '../support/cli-runner.js';
import { createDatabase, fileDatabase, testDataSource, type TestDatabase } from '../support/test-database.js';

const STRONG_PASSWORD = 'Copper-Meadow-Violin-93';

const cli = runCli;

describe('admin CLI: accounts and roles', () => {
  let database: TestDatabase;

  beforeAll(async () => {
    database = await fileDatabase();
  });

  async function rolesOf(email: string): Promise<string[]> {
    const dataSource = testDataSource(database.url);
    await dataSource.initialize();
    try {
      const rows: { name: string }[] = await dataSource.query(
        `SELECT r.name FROM users u JOIN user_roles ur ON ur.user_id = u.id JOIN roles r ON r.id = ur.role_id WHERE u.email = $1 ORDER BY r.name`,
        [email],
      );
      return rows.map((row) => row.name);
    } finally {
      await dataSource.destroy();
    }
  }

  it('create-admin makes an administrator with the password read from standard input', async () => {
    const result = await cli(
      database.url,
      ['create-admin', '--email', 'Ops.Admin@Example.com', '--name', 'Ops Admin', '--mobile', '+4915112345678'],
      `${STRONG_PASSWORD}\n`,
    );
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/^Created administrator ops\.admin@example\.com \([0-9a-f-]{36}\)\.\n$/);
    expect(result.stdout + result.stderr).not.toContain(STRONG_PASSWORD);
    expect(await rolesOf('ops.admin@example.com')).toEqual(['admin']);
  });

  it('create-admin refuses an existing email, a weak password, missing options and a password argument, in one line each', async () => {
    expectOneLineFailure(
      await cli(
        database.url,
        ['create-admin', '--email', 'ops.admin@example.com', '--name', 'Again'],
        `${STRONG_PASSWORD}\n`,
      ),
      'An account with this email or mobile already exists.',
    );
    expectOneLineFailure(
      await cli(database.url, ['create-admin', '--email', 'weak@example.com', '--name', 'Weak'], 'password\n'),
      'Invalid password: password is too common; choose another one.',
    );
    expectOneLineFailure(
      await cli(database.url, ['create-admin', '--name', 'No Email'], `${STRONG_PASSWORD}\n`),
      'create-admin needs --email and --name.',
    );
    expectOneLineFailure(
      await cli(database.url, ['create-admin', '--email', 'nopass@example.com', '--name', 'No Pass'], ''),
      'No password on standard input: pipe it in, or run the command in a terminal to be asked for it.',
    );
    const withArgument = await cli(
      database.url,
      ['create-admin', '--email', 'arg@example.com', '--name', 'Arg', '--password', STRONG_PASSWORD],
      `${STRONG_PASSWORD}\n`,
    );
    expect(withArgument.code).not.toBe(0);
    expect(withArgument.stderr.trim().split('\n')).toHaveLength(1);
    expect(await rolesOf('weak@example.com')).toEqual([]);
    expect(await rolesOf('arg@example.com')).toEqual([]);
  });

  it('assign-role gives a role once, and names what is missing', async () => {
    const first = await cli(database.url, ['assign-role', '--email', 'ops.admin@example.com', '--role', 'user']);
    expect(first).toMatchObject({ code: 0, stdout: 'Assigned role user to ops.admin@example.com.\n', stderr: '' });
    expect(await rolesOf('ops.admin@example.com')).toEqual(['admin', 'user']);
    const again = await cli(database.url, ['assign-role', '--email', 'OPS.ADMIN@example.com', '--role', 'user']);
    expect(again).toMatchObject({ code: 0, stdout: 'OPS.ADMIN@example.com already holds role user.\n' });
    // Role names compare case-insensitively: `User` is the role `user`, not a missing one.
    const otherCase = await cli(database.url, ['assign-role', '--email', 'ops.admin@example.com', '--role', 'User']);
    expect(otherCase).toMatchObject({ code: 0, stdout: 'ops.admin@example.com already holds role User.\n' });
    expectOneLineFailure(
      await cli(database.url, ['assign-role', '--email', 'ops.admin@example.com', '--role', 'no-such-role']),
      'No role named no-such-role; see list-roles.',
    );
    expectOneLineFailure(
      await cli(database.url, ['assign-role', '--email', 'nobody@example.com', '--role', 'user']),
      'No account with the email nobody@example.com.',
    );
  });

  it('list-roles prints each role with its permissions', async () => {
    const result = await cli(database.url, ['list-roles']);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain(
      'admin [system]: audit.view, clients.create, clients.delete, clients.edit, clients.view, contents.create,',
    );
    expect(result.stdout).toContain('user [system]: (no permissions)\n');
  });

  it('an unknown command is one line and a non-zero exit', async () => {
    const result = await cli(database.url, ['no-such-command']);
    expect(result.code).not.toBe(0);
    expect(result.stderr.trim().split('\n')).toHaveLength(1);
  });
});

describe('admin CLI: migrations', () => {
  let database: TestDatabase;

  beforeAll(async () => {
    database = await createDatabase('empty');
  });

  it('migrate:status lists pending migrations, migrate applies and names them, and both say when nothing is left', async () => {
    const before = await cli(database.url, ['migrate:status']);
    expect(before.code).toBe(0);
    expect(before.stdout).toMatch(/^\[ \] InitialSchema\d+$/m);
    expect(before.stdout).toMatch(/^(\d+) of \1 migrations pending\.$/m);

    const applied = await cli(database.url, ['migrate']);
    expect(applied.code).toBe(0);
    expect(applied.stdout).toMatch(/^Applied InitialSchema\d+$/m);
    expect(applied.stdout).toMatch(/^\d+ migration\(s\) applied\.$/m);

    const after = await cli(database.url, ['migrate:status']);
    expect(after.stdout).not.toContain('[ ]');
    expect(after.stdout).toMatch(/^All \d+ migrations applied\.$/m);

    expect((await cli(database.url, ['migrate'])).stdout).toBe('No pending migrations: the schema is up to date.\n');
  });
});
