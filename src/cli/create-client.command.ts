import { Command, CommandRunner, Option } from 'nest-commander';
import { ServiceClientsService } from '../oidc/index.js';

/**
 * `create-client <id>`: an introspection client; its secret is printed once and stored only as a
 * hash. An id that exists is refused (its secret unchanged); `--rotate-secret` replaces it.
 */
@Command({
  name: 'create-client',
  arguments: '<clientId>',
  description: 'Create a service client for POST /api/auth/introspect (--rotate-secret: replace the secret of one)',
})
export class CreateClientCommand extends CommandRunner {
  constructor(private readonly clients: ServiceClientsService) {
    super();
  }

  async run([clientId]: string[], options: { rotateSecret?: boolean } = {}): Promise<void> {
    if (options.rotateSecret) {
      const secret = await this.clients.rotateSecret(clientId);
      process.stdout.write(
        `Client ${clientId}: its secret was replaced; the old one no longer authenticates (running instances ` +
          `forget it within 30 seconds). The new secret, shown only now:\n${secret}\n`,
      );
      return;
    }
    const secret = await this.clients.create(clientId);
    process.stdout.write(`Client ${clientId} created. Its secret, shown only now:\n${secret}\n`);
  }

  @Option({
    flags: '--rotate-secret',
    description:
      "replace the existing client's secret (the old one stops working); without it, an existing id is refused",
  })
  parseRotateSecret(): boolean {
    return true;
  }
}
