import { Injectable, Logger } from '@nestjs/common';
import { randomBytes } from 'node:crypto';
import { DataSource, type EntityManager } from 'typeorm';
import { PasswordHasher, UsersRepository } from '../../identity/index.js';
import { AppConfig, type SeedAccountConfig } from '../../config/app-config.js';
import { MOBILE_MAX_LENGTH, MOBILE_MIN_LENGTH, normalizeEmail, normalizeMobile } from '../../common/normalize.js';
import { SystemRoles } from '@auth-rbac/nest-guard/internal';
import { SEEDED_PERMISSIONS, SEEDED_ROLES, type PermissionSeed } from './seed-data.js';
import { SeedRepository } from './seed.repository.js';
import { RolesRepository } from '../roles.repository.js';
import { UserRolesRepository } from '../user-roles.repository.js';

export interface SeededAccount {
  role: string;
  email: string;
  /** Set only when the password was generated for this run; shown to the operator once. */
  generatedPassword?: string;
}

export interface SeedReport {
  permissionsCreated: number;
  rolesCreated: number;
  adminLinksCreated: number;
  accountsCreated: SeededAccount[];
  accountsSkipped: string[];
}

interface PreparedAccount {
  role: string;
  email: string;
  mobile: string | null;
  name: string;
  passwordHash: string;
  generatedPassword?: string;
}

/** Arbitrary constant: serialises concurrent seeders (two instances starting on one database). */
const SEED_LOCK_KEY = 727_001;

/**
 * Idempotent seeding of the specification's default data. Existing rows are never changed:
 * a permission or role that exists keeps its display name and description, and an existing
 * account keeps its password; the admin role gains every permission that it lacks.
 */
@Injectable()
export class SeedService {
  private readonly logger = new Logger('Seed');
  private readonly rows = new SeedRepository();
  // The rows it writes go through each table's owner, on the seed's own manager.
  private readonly roles: RolesRepository;
  private readonly users: UsersRepository;
  private readonly userRoles = new UserRolesRepository();

  constructor(
    private readonly dataSource: DataSource,
    private readonly config: AppConfig,
    private readonly passwords: PasswordHasher,
  ) {
    this.roles = new RolesRepository(dataSource);
    this.users = new UsersRepository(dataSource);
  }

  async isEmpty(): Promise<boolean> {
    return (await this.rows.countRoles(this.dataSource.manager)) === 0;
  }

  async run(permissions: PermissionSeed[] = SEEDED_PERMISSIONS): Promise<SeedReport> {
    // Passwords are hashed before the transaction: Argon2 is slow and must not hold a connection.
    const accounts = await this.prepareAccounts();
    return this.dataSource.transaction(async (manager) => {
      await this.rows.lock(manager, SEED_LOCK_KEY);
      const permissionsCreated = await this.insertPermissions(manager, permissions);
      const rolesCreated = await this.insertRoles(manager);
      const adminLinksCreated = await this.linkAdminToEveryPermission(manager);
      const { created, skipped } = await this.insertAccounts(manager, accounts);
      const report = {
        permissionsCreated,
        rolesCreated,
        adminLinksCreated,
        accountsCreated: created,
        accountsSkipped: skipped,
      };
      this.logger.log(
        `Seeded ${permissionsCreated} permissions, ${rolesCreated} roles, ${adminLinksCreated} admin links, ` +
          `${created.length} accounts`,
      );
      return report;
    });
  }

  private async insertPermissions(manager: EntityManager, permissions: PermissionSeed[]): Promise<number> {
    let created = 0;
    for (const permission of permissions) if (await this.roles.insertSystemPermission(manager, permission)) created++;
    return created;
  }

  private async insertRoles(manager: EntityManager): Promise<number> {
    let created = 0;
    for (const role of SEEDED_ROLES) if (await this.roles.insertSystemRole(manager, role)) created++;
    return created;
  }

  /** The admin role holds every permission, including ones created after it. */
  private linkAdminToEveryPermission(manager: EntityManager): Promise<number> {
    return this.roles.linkRoleToEveryPermission(manager, SystemRoles.Admin);
  }

  private async insertAccounts(manager: EntityManager, accounts: PreparedAccount[]) {
    const created: SeededAccount[] = [];
    const skipped: string[] = [];
    for (const account of accounts) {
      const userId = await this.users.insertSeededAccount(manager, account);
      if (userId === null) {
        skipped.push(account.email);
        continue;
      }
      await this.userRoles.grantByName(manager, userId, account.role);
      created.push({ role: account.role, email: account.email, generatedPassword: account.generatedPassword });
    }
    return { created, skipped };
  }

  private async prepareAccounts(): Promise<PreparedAccount[]> {
    const wanted = [
      {
        role: SystemRoles.Admin,
        name: 'Administrator',
        defaultEmail: 'admin@example.com',
        seed: this.config.seed.admin,
      },
      { role: SystemRoles.User, name: 'User', defaultEmail: 'user@example.com', seed: this.config.seed.user },
    ];
    const prepared: PreparedAccount[] = [];
    for (const { role, name, defaultEmail, seed } of wanted) {
      const account = await this.prepareAccount(role, name, defaultEmail, seed);
      if (account) prepared.push(account);
    }
    return prepared;
  }

  private async prepareAccount(
    role: string,
    name: string,
    defaultEmail: string,
    seed: SeedAccountConfig,
  ): Promise<PreparedAccount | undefined> {
    const generate = !this.config.isProduction;
    if (!seed.password && !generate) {
      this.logger.log(`No SEED_${role.toUpperCase()}_PASSWORD: the ${role} account is not seeded.`);
      return undefined;
    }
    const email = normalizeEmail(seed.email ?? defaultEmail);
    if (await this.rows.emailTaken(this.dataSource.manager, email)) return undefined;
    if (seed.password !== undefined && (seed.password.length < 8 || seed.password.length > 128)) {
      throw new Error(`SEED_${role.toUpperCase()}_PASSWORD must be 8 to 128 characters long.`);
    }
    const mobile = seed.mobile ? normalizeMobile(seed.mobile, this.config.defaultPhoneRegion) : null;
    if (seed.mobile && (mobile === null || mobile.length < MOBILE_MIN_LENGTH || mobile.length > MOBILE_MAX_LENGTH)) {
      throw new Error(
        `SEED_${role.toUpperCase()}_MOBILE must be a valid phone number of 8 to 15 characters, the + included: ` +
          '+CC or 00CC then the number, or 8 to 15 digits.',
      );
    }
    const generatedPassword = seed.password ? undefined : randomBytes(18).toString('base64url');
    const password = seed.password ?? generatedPassword!;
    return { role, email, mobile, name, passwordHash: await this.passwords.hash(password), generatedPassword };
  }
}
