import { Command, CommandRunner, Option } from 'nest-commander';
import { UsersRepository } from '../identity/index.js';
import { normalizeEmail } from '../common/normalize.js';
import {
  MembersService,
  OrganizationRolesRepository,
  OrganizationsRepository,
  OrganizationsService,
} from '../organizations/index.js';

interface CreateOrganizationOptions {
  slug: string;
  name: string;
  owner: string;
}

interface AddMemberOptions {
  organization: string;
  email: string;
  role: string;
}

/** Runs a command body, printing a refusal as one line on standard error with a non-zero exit. */
async function reported(work: () => Promise<string>): Promise<void> {
  try {
    process.stdout.write(`${await work()}\n`);
  } catch (error) {
    process.stderr.write(`${(error as Error).message}\n`);
    process.exitCode = 1;
  }
}

/** `create-organization --slug S --name N --owner EMAIL`: a new organization, its owner an existing account. */
@Command({ name: 'create-organization', description: 'Create an organization with an existing account as its owner' })
export class CreateOrganizationCommand extends CommandRunner {
  constructor(
    private readonly organizations: OrganizationsService,
    private readonly users: UsersRepository,
  ) {
    super();
  }

  run(_arguments: string[], options: CreateOrganizationOptions): Promise<void> {
    return reported(async () => {
      if (!/^[a-z0-9-]{3,63}$/.test(options.slug)) throw new Error('The slug must be 3 to 63 of a-z, 0-9 and -.');
      const owner = await this.users.findIdByEmail(normalizeEmail(options.owner));
      if (!owner) throw new Error(`No account has the email ${options.owner}.`);
      const created = await this.organizations.createWithOwner(
        { slug: options.slug, name: options.name.trim() },
        owner.id,
        null,
      );
      return `Created organization ${created.slug} (${created.id}), owner ${owner.email}`;
    });
  }

  @Option({ flags: '--slug <slug>', description: '3 to 63 of a-z, 0-9 and -', required: true })
  parseSlug(value: string): string {
    return value;
  }

  @Option({ flags: '--name <name>', description: 'the display name', required: true })
  parseName(value: string): string {
    return value;
  }

  @Option({ flags: '--owner <email>', description: 'the email of an existing account', required: true })
  parseOwner(value: string): string {
    return value;
  }
}

/** `add-member --organization S --email E --role R`: an existing account joins with one organization role. */
@Command({ name: 'add-member', description: 'Add an existing account to an organization with an organization role' })
export class AddMemberCommand extends CommandRunner {
  constructor(
    private readonly organizations: OrganizationsRepository,
    private readonly roles: OrganizationRolesRepository,
    private readonly members: MembersService,
    private readonly users: UsersRepository,
  ) {
    super();
  }

  run(_arguments: string[], options: AddMemberOptions): Promise<void> {
    return reported(async () => {
      const organization = await this.organizations.findBySlug(options.organization);
      if (!organization) throw new Error(`No organization has the slug ${options.organization}.`);
      const user = await this.users.findIdByEmail(normalizeEmail(options.email));
      if (!user) throw new Error(`No account has the email ${options.email}.`);
      const role = await this.roles.findRoleByName(options.role);
      if (!role) throw new Error(`No organization role is named ${options.role}.`);
      const { roles } = await this.members.addByOperator(organization.id, user.id, [role.id]);
      return `${user.email} joined ${organization.slug} with the roles: ${roles.map((held) => held.name).join(', ')}`;
    });
  }

  @Option({ flags: '--organization <slug>', description: "the organization's slug", required: true })
  parseOrganization(value: string): string {
    return value;
  }

  @Option({ flags: '--email <email>', description: 'the email of an existing account', required: true })
  parseEmail(value: string): string {
    return value;
  }

  @Option({ flags: '--role <name>', description: 'an organization role (owner, member, ...)', required: true })
  parseRole(value: string): string {
    return value;
  }
}
