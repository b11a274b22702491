import type { DataSource } from 'typeorm';
import { randomUUID } from 'node:crypto';
import { expectOneLineFailure, runCli } from '../support/cli-runner.js';
import { useTestDatabase } from '../support/fixture.js';

describe('the organization commands: create-organization, add-member', () => {
  const fixture = useTestDatabase();
  let db: DataSource;
  beforeAll(() => void (db = fixture.db));

  async function account(): Promise<string> {
    const email = `cli-${randomUUID()}@example.com`;
    await db.query(`INSERT INTO users (name, email, password_hash) VALUES ('Cli', $1, 'x')`, [email]);
    return email;
  }

  const rolesOf = async (slug: string, email: string): Promise<string[]> =>
    (
      await db.query(
        `SELECT r.name FROM organization_member_roles mr
           JOIN organizations o ON o.id = mr.organization_id JOIN users u ON u.id = mr.user_id
           JOIN organization_roles r ON r.id = mr.role_id
          WHERE o.slug = $1 AND u.email = $2 ORDER BY r.name`,
        [slug, email],
      )
    ).map((row: { name: string }) => row.name);

  it('create-organization makes the organization with the account as its owner; add-member adds one with a role', async () => {
    const owner = await account();
    const member = await account();
    const slug = `cli-${randomUUID().slice(0, 8)}`;
    const created = await runCli(fixture.database.url, [
      'create-organization',
      '--slug',
      slug,
      '--name',
      'Acme',
      '--owner',
      owner,
    ]);
    expect(created.code).toBe(0);
    expect(created.stdout).toContain(`Created organization ${slug}`);
    expect(await rolesOf(slug, owner)).toEqual(['owner']);
    const added = await runCli(fixture.database.url, [
      'add-member',
      '--organization',
      slug,
      '--email',
      member,
      '--role',
      'member',
    ]);
    expect(added.code).toBe(0);
    expect(await rolesOf(slug, member)).toEqual(['member']);
    const events: { n: number }[] = await db.query(
      `SELECT count(*)::int AS n FROM security_events WHERE type = 'assignment-change' AND payload->>'sub' = (SELECT id::text FROM users WHERE email = $1)`,
      [member],
    );
    expect(events[0].n).toBe(1);
  }, 60_000);

  it('refuses in one line: a taken slug, an unknown owner, organization, account or role', async () => {
    const owner = await account();
    const slug = `cli-${randomUUID().slice(0, 8)}`;
    expect(
      (await runCli(fixture.database.url, ['create-organization', '--slug', slug, '--name', 'A', '--owner', owner]))
        .code,
    ).toBe(0);
    expectOneLineFailure(
      await runCli(fixture.database.url, ['create-organization', '--slug', slug, '--name', 'A', '--owner', owner]),
      'An organization with this slug already exists.',
    );
    expectOneLineFailure(
      await runCli(fixture.database.url, [
        'create-organization',
        '--slug',
        `x-${slug}`,
        '--name',
        'A',
        '--owner',
        'nobody@example.com',
      ]),
      'No account has the email nobody@example.com.',
    );
    expectOneLineFailure(
      await runCli(fixture.database.url, [
        'add-member',
        '--organization',
        'no-such-org',
        '--email',
        owner,
        '--role',
        'member',
      ]),
      'No organization has the slug no-such-org.',
    );
    expectOneLineFailure(
      await runCli(fixture.database.url, [
        'add-member',
        '--organization',
        slug,
        '--email',
        await account(),
        '--role',
        'boss',
      ]),
      'No organization role is named boss.',
    );
  }, 60_000);
});
