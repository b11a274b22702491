import { startEmbeddedPostgres } from '../../src/infra/database/embedded-postgres.js';
import { createDatabase, testDataSource, type TestDatabase } from '../support/test-database.js';

const TABLES = [
  'account_change_requests',
  'audit_events',
  'contents',
  'login_failures',
  'otp_codes',
  'outbox_messages',
  'passkeys',
  'password_reset_tokens',
  'permissions',
  'recovery_codes',
  'role_permissions',
  'roles',
  'sessions',
  'settings',
  'totp_authenticators',
  'email_codes',
  'email_verification_tokens',
  'user_roles',
  'users',
  'webauthn_challenges',
];

/** A new in-memory embedded database, for a run on a server (whose test databases live there). */
async function newEmbeddedDatabase(): Promise<TestDatabase> {
  const embedded = await startEmbeddedPostgres({ maxConnections: 4 });
  return { url: embedded.url, kind: 'embedded', drop: () => embedded.stop() };
}

// Both kinds run whenever a server is available; the embedded one always does.
const kinds: ['server' | 'embedded', () => Promise<TestDatabase>][] =
  process.env.TEST_DATABASE_KIND === 'server'
    ? [
        ['server', () => createDatabase('empty')],
        ['embedded', newEmbeddedDatabase],
      ]
    : [['embedded', () => createDatabase('empty')]];

describe.each(kinds)('migrations on an empty %s database', (_kind, emptyDatabase) => {
  it('apply, match the entities exactly, and revert to an empty schema', async () => {
    const database = await emptyDatabase();

    const dataSource = testDataSource(database.url);
    try {
      await dataSource.initialize();
      const applied = await dataSource.runMigrations({ transaction: 'each' });
      expect(applied.length).toBe(dataSource.migrations.length);
      expect(await userTables(dataSource)).toEqual(expect.arrayContaining(TABLES));

      // The entities and the migrations describe the same schema: nothing left to synchronise.
      const pending = await dataSource.driver.createSchemaBuilder().log();
      expect(pending.upQueries.map((query) => query.query)).toEqual([]);

      for (let i = 0; i < applied.length; i++) await dataSource.undoLastMigration({ transaction: 'each' });
      expect((await userTables(dataSource)).filter((table) => table !== 'migrations')).toEqual([]);

      // And they apply again after a full revert.
      await dataSource.runMigrations({ transaction: 'each' });
      expect(await userTables(dataSource)).toEqual(expect.arrayContaining(TABLES));
    } finally {
      if (dataSource.isInitialized) await dataSource.destroy();
      await database.drop();
    }
    // Every migration twice and every revert on a new embedded cluster: on two loaded cores that
    // can pass the run's 60 s default. A limit, not a measurement.
  }, 180_000);
});

async function userTables(dataSource: ReturnType<typeof testDataSource>): Promise<string[]> {
  const rows: { table_name: string }[] = await dataSource.query(
    `SELECT table_name FROM information_schema.tables WHERE table_schema = 'public' ORDER BY table_name`,
  );
  return rows.map((row) => row.table_name);
}
