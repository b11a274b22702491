import { Command, CommandRunner } from 'nest-commander';
import { ClientsService } from '../clients/index.js';

/** `create-client <id>`: an introspection client; its secret is printed once and stored only as a hash. */
@Command({
  name: 'create-client',
  arguments: '<clientId>',
  description: 'Create (or re-key) a service client for POST /api/auth/introspect',
})
export class CreateClientCommand extends CommandRunner {
  constructor(private readonly clients: ClientsService) {
    super();
  }

  async run([clientId]: string[]): Promise<void> {
    const { secret } = await this.clients.createFromCli(clientId, {});
    process.stdout.write(`Client ${clientId} created. Its secret, shown only now:\n${secret}\n`);
  }
}
