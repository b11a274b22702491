import { Command, CommandRunner, Option } from 'nest-commander';
import { ClientRolesService } from '../clients/index.js';

interface AssignClientRoleOptions {
  client: string;
  role: string;
}

/**
 * `assign-client-role --client ID --role NAME`: gives a service client (SERVICE_CLIENTS or made
 * by `create-client`) a role; its client-credentials tokens then carry that role's permissions.
 * The operator at the command line is trusted, as for `create-admin`.
 */
@Command({
  name: 'assign-client-role',
  description: 'Give a service client a role (its client-credentials tokens get the role’s permissions)',
})
export class AssignClientRoleCommand extends CommandRunner {
  constructor(private readonly clientRoles: ClientRolesService) {
    super();
  }

  async run(_arguments: string[], options: AssignClientRoleOptions): Promise<void> {
    try {
      const roleId = await this.clientRoles.roleIdOf(options.role);
      const { roles } = await this.clientRoles.add(null, options.client, [roleId]);
      process.stdout.write(
        `Client ${options.client} now has the roles: ${roles.map((role) => role.name).join(', ')}\n`,
      );
    } catch (error) {
      process.stderr.write(`${(error as Error).message}\n`);
      process.exitCode = 1;
    }
  }

  @Option({ flags: '--client <id>', description: 'the client id', required: true })
  parseClient(value: string): string {
    return value;
  }

  @Option({ flags: '--role <name>', description: 'the role name', required: true })
  parseRole(value: string): string {
    return value;
  }
}
