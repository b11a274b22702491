import { Injectable } from '@nestjs/common';
import { SystemRoles } from '@auth-rbac/nest-guard/internal';
import { plainToInstance } from 'class-transformer';
import { validate } from 'class-validator';
import { AuditLog } from '../audit/index.js';
import { RegisterDto } from '../sign-in/index.js';
import { PasswordHasher, UsersRepository } from '../identity/index.js';
import type { IdentityTransformOptions } from '../common/contact-fields.js';
import { normalizeEmail } from '../common/normalize.js';
import { AppConfig } from '../config/app-config.js';
import { AuthzVersions, RolesRepository, UserRolesRepository, NewAccounts } from '../rbac/index.js';
import { Transactions } from '../infra/database/transactions.js';
import { uniqueViolationField } from '../common/unique-violation.js';
import { AppException } from '../common/app-exception.js';
import { UserDisablingService, type UserResponse } from '../users/index.js';

/** A refusal the CLI prints as its one line before exiting with status 1. */
export class CliError extends Error {
  override name = 'CliError';
}

/**
 * Administrative account work for the CLI. The operator at the console is trusted like the seed
 * (there is no actor to check the privilege policy against); each change is audited with no actor
 * and `via: "cli"`, and role changes are published so running instances drop cached permissions.
 */
@Injectable()
export class AdminAccountsService {
  constructor(
    private readonly userRoles: UserRolesRepository,
    private readonly newAccounts: NewAccounts,
    private readonly transactions: Transactions,
    private readonly config: AppConfig,
    private readonly users: UsersRepository,
    private readonly roles: RolesRepository,
    private readonly hasher: PasswordHasher,
    private readonly versions: AuthzVersions,
    private readonly audit: AuditLog,
    private readonly disabling: UserDisablingService,
  ) {}

  /** The same rules as registration: name, email, optional mobile and a strong password. */
  async createAdmin(input: {
    email: string;
    name: string;
    mobile?: string;
    password: string;
  }): Promise<{ id: string; email: string }> {
    const dto = plainToInstance(RegisterDto, { ...input, password_confirmation: input.password }, {
      phoneRegion: this.config.defaultPhoneRegion,
    } as IdentityTransformOptions);
    const errors = await validate(dto, { whitelist: true, forbidNonWhitelisted: true });
    if (errors.length > 0) {
      const first = errors[0]!;
      throw new CliError(`Invalid ${first.property}: ${Object.values(first.constraints ?? {})[0] ?? 'not accepted'}.`);
    }
    const passwordHash = await this.hasher.hash(dto.password);
    let user: { id: string; email: string };
    try {
      user = await this.transactions.run((manager) =>
        this.newAccounts.create(
          manager,
          { name: dto.name, email: dto.email, mobile: dto.mobile ?? null, passwordHash, emailVerified: true },
          SystemRoles.Admin,
        ),
      );
    } catch (error) {
      if (uniqueViolationField(error) !== null)
        throw new CliError('An account with this email or mobile already exists.');
      throw error;
    }
    await this.audit.record({
      type: 'user.create',
      targetType: 'user',
      targetId: user.id,
      details: { via: 'cli', roles: [SystemRoles.Admin] },
    });
    return { id: user.id, email: user.email };
  }

  async assignRole(email: string, roleName: string): Promise<'assigned' | 'already held'> {
    const user = await this.users.findIdByEmail(normalizeEmail(email));
    if (!user) throw new CliError(`No account with the email ${email}.`);
    const role = await this.roles.findRoleByName(roleName.trim());
    if (!role) throw new CliError(`No role named ${roleName}; see list-roles.`);
    const added = await this.transactions.run((manager) => this.userRoles.grant(manager, user.id, role.id));
    if (!added) return 'already held';
    await this.versions.bumpUser(user.id);
    await this.audit.record({
      type: 'user.roles',
      targetType: 'user',
      targetId: user.id,
      details: { via: 'cli', added: role.name },
    });
    return 'assigned';
  }

  /** As the API's disable, with the operator for actor: the last enabled administrator stays enabled. */
  async disableUser(email: string, options: { reason?: string; until?: string }): Promise<UserResponse> {
    const user = await this.findUser(email);
    let until: Date | null = null;
    if (options.until !== undefined) {
      until = new Date(options.until);
      if (!/T/.test(options.until) || Number.isNaN(until.getTime()))
        throw new CliError('Invalid --until: an ISO 8601 date and time is expected (2030-01-31T12:00:00Z).');
      if (until.getTime() <= Date.now()) throw new CliError('Invalid --until: it must be in the future.');
    }
    if (options.reason !== undefined && options.reason.length > 255)
      throw new CliError('Invalid --reason: at most 255 characters.');
    return this.asCliError(() => this.disabling.disable(user.id, { reason: options.reason ?? null, until }, null));
  }

  async enableUser(email: string): Promise<UserResponse> {
    const user = await this.findUser(email);
    return this.asCliError(() => this.disabling.enable(user.id, null));
  }

  private async findUser(email: string): Promise<{ id: string }> {
    const user = await this.users.findIdByEmail(normalizeEmail(email));
    if (!user) throw new CliError(`No account with the email ${email}.`);
    return user;
  }

  /** The service's refusals (the last administrator) as the command's one line. */
  private async asCliError<T>(work: () => Promise<T>): Promise<T> {
    try {
      return await work();
    } catch (error) {
      if (error instanceof AppException) throw new CliError(error.message);
      throw error;
    }
  }

  async listRoles(): Promise<{ name: string; isSystem: boolean; permissions: string[] }[]> {
    const roles = await this.roles.listWithPermissions();
    return roles.map((role) => ({
      name: role.name,
      isSystem: role.isSystem,
      permissions: (role.permissions ?? []).map((p) => p.name).sort(),
    }));
  }
}
