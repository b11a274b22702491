import { Command, CommandRunner, Option } from 'nest-commander';
import { AdminAccountsService, CliError } from './admin-accounts.service.js';
import { readPassword } from './password-input.js';

interface CreateAdminOptions {
  email?: string;
  name?: string;
  mobile?: string;
}

@Command({
  name: 'create-admin',
  description: 'Create an account holding the admin role; the password is asked for, or read from standard input',
})
export class CreateAdminCommand extends CommandRunner {
  constructor(private readonly accounts: AdminAccountsService) {
    super();
  }

  async run(_args: string[], options: CreateAdminOptions): Promise<void> {
    if (!options.email || !options.name) throw new CliError('create-admin needs --email and --name.');
    const password = await readPassword();
    const user = await this.accounts.createAdmin({
      email: options.email,
      name: options.name,
      mobile: options.mobile,
      password,
    });
    process.stdout.write(`Created administrator ${user.email} (${user.id}).\n`);
  }

  @Option({ flags: '--email <email>', description: 'email address of the new administrator' })
  parseEmail(value: string): string {
    return value;
  }

  @Option({ flags: '--name <name>', description: 'display name' })
  parseName(value: string): string {
    return value;
  }

  @Option({ flags: '--mobile <mobile>', description: 'mobile number, for the second factor' })
  parseMobile(value: string): string {
    return value;
  }
}

@Command({ name: 'assign-role', description: 'Give an existing account a role' })
export class AssignRoleCommand extends CommandRunner {
  constructor(private readonly accounts: AdminAccountsService) {
    super();
  }

  async run(_args: string[], options: { email?: string; role?: string }): Promise<void> {
    if (!options.email || !options.role) throw new CliError('assign-role needs --email and --role.');
    const outcome = await this.accounts.assignRole(options.email, options.role);
    process.stdout.write(
      outcome === 'assigned'
        ? `Assigned role ${options.role} to ${options.email}.\n`
        : `${options.email} already holds role ${options.role}.\n`,
    );
  }

  @Option({ flags: '--email <email>', description: 'email address of the account' })
  parseEmail(value: string): string {
    return value;
  }

  @Option({ flags: '--role <role>', description: 'name of the role' })
  parseRole(value: string): string {
    return value;
  }
}

@Command({ name: 'list-roles', description: 'List the roles and their permissions' })
export class ListRolesCommand extends CommandRunner {
  constructor(private readonly accounts: AdminAccountsService) {
    super();
  }

  async run(): Promise<void> {
    for (const role of await this.accounts.listRoles()) {
      const permissions = role.permissions.length ? role.permissions.join(', ') : '(no permissions)';
      process.stdout.write(`${role.name}${role.isSystem ? ' [system]' : ''}: ${permissions}\n`);
    }
  }
}

interface DisableUserOptions {
  email?: string;
  reason?: string;
  until?: string;
}

@Command({
  name: 'disable-user',
  description:
    'Disable the account with this email: no sign-in of any kind, every session ends at once (the last enabled administrator cannot be disabled)',
})
export class DisableUserCommand extends CommandRunner {
  constructor(private readonly accounts: AdminAccountsService) {
    super();
  }

  async run(_args: string[], options: DisableUserOptions): Promise<void> {
    if (!options.email) throw new CliError('disable-user needs --email.');
    const user = await this.accounts.disableUser(options.email, { reason: options.reason, until: options.until });
    const until = user.disabled_until ? ` until ${new Date(user.disabled_until).toISOString()}` : '';
    process.stdout.write(`Disabled ${user.email}${until}; its sessions are revoked.\n`);
  }

  @Option({ flags: '--email <email>', description: 'email address of the account' })
  parseEmail(value: string): string {
    return value;
  }

  @Option({ flags: '--reason <reason>', description: 'why, for administrators (at most 255 characters)' })
  parseReason(value: string): string {
    return value;
  }

  @Option({
    flags: '--until <time>',
    description: 'ISO 8601 date and time in the future when the account is enabled again by itself',
  })
  parseUntil(value: string): string {
    return value;
  }
}

@Command({ name: 'enable-user', description: 'Enable a disabled account with this email' })
export class EnableUserCommand extends CommandRunner {
  constructor(private readonly accounts: AdminAccountsService) {
    super();
  }

  async run(_args: string[], options: { email?: string }): Promise<void> {
    if (!options.email) throw new CliError('enable-user needs --email.');
    const user = await this.accounts.enableUser(options.email);
    process.stdout.write(`Enabled ${user.email}.\n`);
  }

  @Option({ flags: '--email <email>', description: 'email address of the account' })
  parseEmail(value: string): string {
    return value;
  }
}
