import { startEmbeddedPostgres } from '../../src/infra/database/embedded-postgres.js';
import { createDatabase, testDataSource, type TestDatabase } from '../support/test-database.js';

const TABLES = [
  'account_change_requests',
  'audit_events',
  'contents',
  'login_failures',
  'one_time_codes',
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

describe.each(kinds)('the one-time codes on an existing %s database', (_kind, emptyDatabase) => {
  it('move from otp_codes, email_codes and mobile changes into one_time_codes, keeping their hashes and counts', async () => {
    const database = await emptyDatabase();
    const dataSource = testDataSource(database.url);
    try {
      await dataSource.initialize();
      await dataSource.runMigrations({ transaction: 'each' });
      // Back to the schema before the codes were one table (reverting what came after it too), with
      // rows of every kind in it.
      const codesMigration = dataSource.migrations.findIndex((m) => m.name === 'OneTimeCodes1770800000000');
      for (let i = codesMigration; i < dataSource.migrations.length; i++) {
        await dataSource.undoLastMigration({ transaction: 'each' });
      }
      const [user]: { id: string }[] = await dataSource.query(
        `INSERT INTO users (name, email, password_hash) VALUES ('Migrated', 'migrated@example.com', 'x') RETURNING id`,
      );
      const hash = (char: string) => char.repeat(64);
      const later = new Date(Date.now() + 300_000);
      await dataSource.query(
        `INSERT INTO otp_codes (purpose, mobile, user_id, temp_token_jti, code_hash, attempts, expires_at, ended_at, end_reason)
         VALUES ('login', '+14155550100', $1, NULL, $2, 2, $5, NULL, NULL),
                ('2fa', '', $1, 'jti-of-a-temp-token', $3, 0, $5, NULL, NULL),
                ('reauth', '+14155550100', $1, NULL, $4, 3, $5, now(), 'burned')`,
        [user.id, hash('a'), hash('b'), hash('c'), later],
      );
      await dataSource.query(
        `INSERT INTO email_codes (email, user_id, code_hash, attempts, client_ip, expires_at)
         VALUES ('migrated@example.com', NULL, $1, 1, '203.0.113.0', $2)`,
        [hash('d'), later],
      );
      const [mobileChange]: { id: string }[] = await dataSource.query(
        `INSERT INTO account_change_requests (user_id, kind, new_value, secret_hash, attempts, expires_at)
         VALUES ($1, 'mobile', '+14155550199', $2, 1, $3) RETURNING id`,
        [user.id, hash('e'), later],
      );
      await dataSource.query(
        `INSERT INTO account_change_requests (user_id, kind, new_value, secret_hash, expires_at)
         VALUES ($1, 'email', 'new@example.com', $2, $3)`,
        [user.id, hash('f'), later],
      );

      await dataSource.runMigrations({ transaction: 'each' });

      const codes: Record<string, unknown>[] = await dataSource.query(
        `SELECT purpose, recipient, user_id, reference, code_hash, attempts, client_ip, ended_at IS NOT NULL AS ended, end_reason
           FROM one_time_codes ORDER BY code_hash`,
      );
      expect(codes).toEqual([
        {
          purpose: 'sms_sign_in',
          recipient: '+14155550100',
          user_id: user.id,
          reference: null,
          code_hash: hash('a'),
          attempts: 2,
          client_ip: null,
          ended: false,
          end_reason: null,
        },
        {
          purpose: 'second_factor',
          recipient: null,
          user_id: user.id,
          reference: 'jti-of-a-temp-token',
          code_hash: hash('b'),
          attempts: 0,
          client_ip: null,
          ended: false,
          end_reason: null,
        },
        {
          purpose: 'reauthentication',
          recipient: '+14155550100',
          user_id: user.id,
          reference: null,
          code_hash: hash('c'),
          attempts: 3,
          client_ip: null,
          ended: true,
          end_reason: 'burned',
        },
        {
          purpose: 'email_sign_in',
          recipient: 'migrated@example.com',
          user_id: null,
          reference: null,
          code_hash: hash('d'),
          attempts: 1,
          client_ip: '203.0.113.0',
          ended: false,
          end_reason: null,
        },
        // Hashed under a key of its own before: ended, so the holder asks for a new code.
        {
          purpose: 'mobile_change',
          recipient: '+14155550199',
          user_id: user.id,
          reference: mobileChange.id,
          code_hash: hash('e'),
          attempts: 1,
          client_ip: null,
          ended: true,
          end_reason: 'replaced',
        },
      ]);
      // The pending changes stay, without the mobile change's code; the email change keeps its link's hash.
      expect(
        await dataSource.query(`SELECT kind, new_value, secret_hash FROM account_change_requests ORDER BY kind`),
      ).toEqual([
        { kind: 'email', new_value: 'new@example.com', secret_hash: hash('f') },
        { kind: 'mobile', new_value: '+14155550199', secret_hash: null },
      ]);
      const tables = await userTables(dataSource);
      expect(tables).toContain('one_time_codes');
      expect(tables).not.toContain('otp_codes');
      expect(tables).not.toContain('email_codes');
    } finally {
      if (dataSource.isInitialized) await dataSource.destroy();
      await database.drop();
    }
  }, 180_000);
});

async function userTables(dataSource: ReturnType<typeof testDataSource>): Promise<string[]> {
  const rows: { table_name: string }[] = await dataSource.query(
    `SELECT table_name FROM information_schema.tables WHERE table_schema = 'public' ORDER BY table_name`,
  );
  return rows.map((row) => row.table_name);
}
