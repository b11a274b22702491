import { Injectable } from '@nestjs/common';
import { DataSource, type EntityManager } from 'typeorm';
import { accountStatusColumns, type AccountStatus } from './account-status.js';

/**
 * A row of `users`, the one shape the table's statements answer in: every column aliased to its
 * camelCase name (`password_hash AS "passwordHash"`). Reads of part of it are `Pick`s of it.
 */
export interface UserRow {
  id: string;
  name: string;
  email: string;
  mobile: string | null;
  passwordHash: string;
  emailVerifiedAt: Date | null;
  disabledAt: Date | null;
  disabledUntil: Date | null;
  disabledReason: string | null;
  createdAt: Date;
  updatedAt: Date;
}

/** Who a user is: the columns every read of an account starts with. */
export type UserIdentityRow = Pick<UserRow, 'id' | 'name' | 'email' | 'mobile'>;

export interface UserWithPassword {
  id: string;
  name: string;
  email: string;
  mobile: string | null;
  passwordHash: string;
  /** A confirmed authenticator app: read with the credentials, so a sign-in needs no second look. */
  hasTotp: boolean;
  emailVerified: boolean;
  disabledAt: Date | null;
  disabledUntil: Date | null;
  /** Whether the account holds a passkey: then its password alone never earns tokens. */
  hasPasskey: boolean;
}

/** An account about to receive a session: who it is, and whether it may sign in. */
export type SignInAccount = { id: string; name: string; email: string; mobile: string | null } & AccountStatus;

export interface NewUser {
  name: string;
  email: string;
  mobile: string | null;
  passwordHash: string;
  /** Set for addresses someone vouched for (an administrator, the operator); a registration proves its own. */
  emailVerified?: boolean;
  /** False for an account made by an upstream sign-in: its hash is of a password nobody knows. */
  passwordSet?: boolean;
}

/** What a user may do: role names and the union of their roles' permissions. */
/** The fields of an account its holder or an administrator may change. */
export interface AccountChanges {
  name?: string;
  email?: string;
  /** `null` removes the number. */
  mobile?: string | null;
  passwordHash?: string;
  /** With `passwordHash`: false when the new hash is of a password nobody knows (a voided one). */
  passwordSet?: boolean;
}

/** The caller's own record, as `/api/auth/me` and `GET /api/account` show it. */
export type CallerProfileRow = UserIdentityRow & { emailVerified: boolean };

/**
 * The account a sign-in names, as `UserWithPassword`, by its email or mobile (`$1`): the one
 * lookup of a sign-in, which the lockout's counting statement composes into its own.
 */
export function userWithPasswordSql(column: 'email' | 'mobile'): string {
  return `SELECT u.id, u.name, u.email, u.mobile, u.password_hash AS "passwordHash",
                 EXISTS (SELECT 1 FROM totp_authenticators t WHERE t.user_id = u.id AND t.confirmed_at IS NOT NULL) AS "hasTotp",
                 u.email_verified_at IS NOT NULL AS "emailVerified", ${accountStatusColumns('u')},
                 EXISTS (SELECT 1 FROM passkeys p WHERE p.user_id = u.id) AS "hasPasskey"
            FROM users u WHERE u.${column} = $1`;
}

@Injectable()
export class UsersRepository {
  constructor(private readonly dataSource: DataSource) {}

  async findByEmailWithPassword(email: string): Promise<UserWithPassword | null> {
    const [row]: UserWithPassword[] = await this.dataSource.query(userWithPasswordSql('email'), [email]);
    return row ?? null;
  }

  /**
   * Replaces a password hash only while it is still the one that was verified, so a rehash on
   * sign-in never overwrites a password changed in the meantime.
   */
  async replacePasswordHash(userId: string, verifiedHash: string, newHash: string): Promise<void> {
    await this.dataSource.query(
      `UPDATE users SET password_hash = $3, updated_at = CURRENT_TIMESTAMP WHERE id = $1 AND password_hash = $2`,
      [userId, verifiedHash, newHash],
    );
  }

  async findIdByEmail(email: string): Promise<Pick<UserRow, 'id' | 'email' | 'name'> | null> {
    const [row]: Pick<UserRow, 'id' | 'email' | 'name'>[] = await this.dataSource.query(
      `SELECT id, email, name FROM users WHERE email = $1 LIMIT 1`,
      [email],
    );
    return row ?? null;
  }

  async findIdByMobile(mobile: string): Promise<Pick<UserRow, 'id'> | null> {
    const [row]: Pick<UserRow, 'id'>[] = await this.dataSource.query(`SELECT id FROM users WHERE mobile = $1 LIMIT 1`, [
      mobile,
    ]);
    return row ?? null;
  }

  /** Inserts the user, in the caller's transaction (its roles: rbac's UserRolesRepository). */
  async insert(manager: EntityManager, user: NewUser): Promise<SignInAccount> {
    const [row] = await manager.query(
      `INSERT INTO users (name, email, mobile, password_hash, email_verified_at, password_set)
       VALUES ($1, $2, $3, $4, CASE WHEN $5::boolean THEN now() END, $6)
       RETURNING id, name, email, mobile, ${accountStatusColumns('users')}`,
      [user.name, user.email, user.mobile, user.passwordHash, user.emailVerified === true, user.passwordSet !== false],
    );
    return row as SignInAccount;
  }

  async findProfile(userId: string): Promise<UserIdentityRow | null> {
    const [row]: UserIdentityRow[] = await this.dataSource.query(
      `SELECT id, name, email, mobile FROM users WHERE id = $1 LIMIT 1`,
      [userId],
    );
    return row ?? null;
  }

  /** The account a sign-in completes for (after its first factor), with what `assertMaySignIn` judges. */
  async findSignInAccount(
    userId: string,
    manager: EntityManager = this.dataSource.manager,
  ): Promise<SignInAccount | null> {
    const [row]: SignInAccount[] = await manager.query(
      `SELECT u.id, u.name, u.email, u.mobile, ${accountStatusColumns('u')} FROM users u WHERE u.id = $1`,
      [userId],
    );
    return row ?? null;
  }

  /** The account an address names, with its status, for the email-code sign-in; null for none. */
  async findSignInAccountByEmail(manager: EntityManager, email: string): Promise<SignInAccount | null> {
    const [row]: SignInAccount[] = await manager.query(
      `SELECT u.id, u.name, u.email, u.mobile, ${accountStatusColumns('u')} FROM users u WHERE u.email = $1`,
      [email],
    );
    return row ?? null;
  }

  async isEmailVerified(userId: string, manager: EntityManager = this.dataSource.manager): Promise<boolean> {
    const [row]: { verified: boolean }[] = await manager.query(
      `SELECT email_verified_at IS NOT NULL AS verified FROM users WHERE id = $1`,
      [userId],
    );
    return row?.verified ?? false;
  }

  /**
   * Marks the address verified while it is still the account's: `verified` when it was not yet,
   * `already` when it was, `mismatch` when the account has another address (or is gone).
   */
  async markEmailVerified(
    manager: EntityManager,
    userId: string,
    email: string,
  ): Promise<'verified' | 'already' | 'mismatch'> {
    const [, affected]: [unknown[], number] = await manager.query(
      `UPDATE users SET email_verified_at = now(), updated_at = now()
        WHERE id = $1 AND email = $2 AND email_verified_at IS NULL`,
      [userId, email],
    );
    if (affected > 0) return 'verified';
    const rows: unknown[] = await manager.query(`SELECT 1 FROM users WHERE id = $1 AND email = $2`, [userId, email]);
    return rows.length > 0 ? 'already' : 'mismatch';
  }

  /** The caller's own record, as `/api/auth/me` and `GET /api/account` show it; in the caller's transaction when given one. */
  async findCallerProfile(userId: string, manager?: EntityManager): Promise<CallerProfileRow | null> {
    const [row]: CallerProfileRow[] = await (manager ?? this.dataSource).query(
      `SELECT id, name, email, mobile, email_verified_at IS NOT NULL AS "emailVerified" FROM users WHERE id = $1`,
      [userId],
    );
    return row ?? null;
  }

  /** Disables the account (`until` null: until an administrator enables it), in the caller's transaction. */
  async setDisabled(
    manager: EntityManager,
    userId: string,
    disabling: { until: Date | null; reason: string | null },
  ): Promise<void> {
    await manager.query(
      `UPDATE users SET disabled_at = now(), disabled_until = $2, disabled_reason = $3, updated_at = now() WHERE id = $1`,
      [userId, disabling.until, disabling.reason],
    );
  }

  async clearDisabled(manager: EntityManager, userId: string): Promise<void> {
    await manager.query(
      `UPDATE users SET disabled_at = NULL, disabled_until = NULL, disabled_reason = NULL, updated_at = now() WHERE id = $1`,
      [userId],
    );
  }

  /** The user's current name, email and mobile, locked for the rest of the caller's transaction. */
  async lockAccount(manager: EntityManager, userId: string): Promise<UserIdentityRow | null> {
    const [row]: UserIdentityRow[] = await manager.query(
      `SELECT id, name, email, mobile FROM users WHERE id = $1 FOR UPDATE`,
      [userId],
    );
    return row ?? null;
  }

  async updateAccount(manager: EntityManager, userId: string, changes: AccountChanges): Promise<void> {
    const columns: [string, unknown][] = [
      ['name', changes.name],
      ['email', changes.email],
      ['mobile', changes.mobile],
      ['password_hash', changes.passwordHash],
      ['password_set', changes.passwordHash === undefined ? undefined : changes.passwordSet !== false],
    ];
    // Every new address was proved or vouched for: the holder confirmed its link, or an
    // administrator typed it.
    if (changes.email !== undefined) columns.push(['email_verified_at', new Date()]);
    const params: unknown[] = [userId];
    const sets = columns
      .filter(([, value]) => value !== undefined)
      .map(([column, value]) => {
        params.push(value);
        return `${column} = $${params.length}`;
      });
    await manager.query(`UPDATE users SET ${[...sets, 'updated_at = now()'].join(', ')} WHERE id = $1`, params);
  }

  /** Whether the holder set the account's password (an account made by an upstream sign-in has none). */
  async hasPasswordSet(userId: string, manager: EntityManager = this.dataSource.manager): Promise<boolean> {
    const [row] = await manager.query(`SELECT password_set AS "passwordSet" FROM users WHERE id = $1`, [userId]);
    return row?.passwordSet === true;
  }

  /** The user's email as it is now, read in the caller's transaction. */
  async findEmail(manager: EntityManager, userId: string): Promise<string | null> {
    const [row] = await manager.query(`SELECT email FROM users WHERE id = $1`, [userId]);
    return row?.email ?? null;
  }

  async deleteUser(manager: EntityManager, id: string): Promise<void> {
    await manager.query(`DELETE FROM users WHERE id = $1`, [id]);
  }

  /** The user's row id, locked until the caller's transaction ends; null when there is no such user. */
  async lockUserRow(manager: EntityManager, userId: string): Promise<{ id: string } | null> {
    const [user] = await manager.query(`SELECT id FROM users WHERE id = $1 FOR UPDATE`, [userId]);
    return user ?? null;
  }

  /** The account holding this mobile (none or one: mobiles are unique), in the caller's transaction. */
  findAccountsByMobile(manager: EntityManager, mobile: string): Promise<(SignInAccount & { mobile: string })[]> {
    return manager.query(
      `SELECT u.id, u.name, u.email, u.mobile, ${accountStatusColumns('u')} FROM users u WHERE u.mobile = $1`,
      [mobile],
    );
  }

  /** The new user's id, or null when the email or mobile is taken (the account is then skipped). */
  async insertSeededAccount(
    manager: EntityManager,
    account: Pick<UserRow, 'name' | 'email' | 'mobile' | 'passwordHash'>,
  ): Promise<string | null> {
    // Seeded accounts are the operator's own: their addresses count as verified.
    const inserted: Pick<UserRow, 'id'>[] = await manager.query(
      `INSERT INTO users (name, email, mobile, password_hash, email_verified_at) VALUES ($1, $2, $3, $4, now())
       ON CONFLICT DO NOTHING RETURNING id`,
      [account.name, account.email, account.mobile, account.passwordHash],
    );
    return inserted[0]?.id ?? null;
  }
}
