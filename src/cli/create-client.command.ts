import { Command, CommandRunner, Option } from 'nest-commander';
import { ClientFieldsError, ClientsService, type ClientFields } from '../clients/index.js';
import { AppException } from '../common/app-exception.js';

/** The flags of `create-client`: the fields of `POST /api/admin/clients`. */
interface CreateClientOptions {
  name?: string;
  public?: boolean;
  redirectUri?: string[];
  postLogoutRedirectUri?: string[];
  firstParty?: boolean;
  backchannelLogoutUri?: string;
  grant?: string[];
  rotateSecret?: boolean;
}

const collect = (value: string, previous: string[] = []): string[] => [...previous, value];

/**
 * `create-client <id>`: a client of the registry; a confidential client's secret is printed once
 * and stored only as a hash. Without flags: a confidential service client with
 * `client_credentials` (and `refresh_token`), as it always was. The flags are the fields of
 * `POST /api/admin/clients`, under the same rules. An id that exists is refused (exit 1, its
 * secret unchanged); `--rotate-secret` replaces that client's secret on purpose.
 */
@Command({
  name: 'create-client',
  arguments: '<clientId>',
  description:
    'Create a client: a service of the token endpoint, or an application that signs people in (--rotate-secret: a new secret for one that exists)',
})
export class CreateClientCommand extends CommandRunner {
  constructor(private readonly clients: ClientsService) {
    super();
  }

  async run([clientId]: string[], options: CreateClientOptions = {}): Promise<void> {
    if (options.rotateSecret) return this.rotateSecret(clientId);
    const fields: Partial<ClientFields> = {
      name: options.name,
      type: options.public ? 'public' : undefined,
      redirectUris: options.redirectUri,
      postLogoutRedirectUris: options.postLogoutRedirectUri,
      grantTypes: options.grant,
      firstParty: options.firstParty,
      backchannelLogoutUri: options.backchannelLogoutUri,
    };
    try {
      const { secret } = await this.clients.createFromCli(clientId, fields);
      process.stdout.write(
        secret === null
          ? `Client ${clientId} created: a public client, which has no secret.\n`
          : `Client ${clientId} created. Its secret, shown only now:\n${secret}\n`,
      );
    } catch (error) {
      if (!(error instanceof ClientFieldsError)) throw error;
      process.stderr.write(`${error.message}\n`);
      process.exitCode = 1;
    }
  }

  private async rotateSecret(clientId: string): Promise<void> {
    try {
      const { secret } = await this.clients.rotateSecret(clientId);
      process.stdout.write(
        `Client ${clientId}: its secret was replaced; the old one no longer authenticates. ` +
          `The new secret, shown only now:\n${secret}\n`,
      );
    } catch (error) {
      if (!(error instanceof AppException)) throw error;
      // One line saying what is wrong: no such client, or a public one (which has no secret).
      throw new Error(
        error.code === 'NOT_FOUND'
          ? `Client ${clientId} does not exist: create it without --rotate-secret.`
          : `Client ${clientId} is a public client, which has no secret to replace.`,
        { cause: error },
      );
    }
  }

  @Option({
    flags: '--rotate-secret',
    description:
      "replace an existing client's secret (the old one stops working); without it an existing id is refused",
  })
  parseRotateSecret(): boolean {
    return true;
  }

  @Option({ flags: '--name <name>', description: 'the name people see (default: the id)' })
  parseName(value: string): string {
    return value;
  }

  @Option({ flags: '--public', description: 'a public client (a browser or native app): no secret, PKCE' })
  parsePublic(): boolean {
    return true;
  }

  @Option({ flags: '--redirect-uri <uri>', description: 'a redirect URI (repeatable)' })
  parseRedirectUri(value: string, previous?: string[]): string[] {
    return collect(value, previous);
  }

  @Option({ flags: '--post-logout-redirect-uri <uri>', description: 'a post-logout redirect URI (repeatable)' })
  parsePostLogoutRedirectUri(value: string, previous?: string[]): string[] {
    return collect(value, previous);
  }

  @Option({ flags: '--first-party', description: 'asks no consent' })
  parseFirstParty(): boolean {
    return true;
  }

  @Option({ flags: '--backchannel-logout-uri <uri>', description: 'receives back-channel logout tokens' })
  parseBackchannelLogoutUri(value: string): string {
    return value;
  }

  @Option({
    flags: '--grant <grant>',
    description:
      'a grant type (repeatable): authorization_code, refresh_token, client_credentials; default ' +
      'authorization_code and refresh_token with a redirect URI, else client_credentials and refresh_token',
  })
  parseGrant(value: string, previous?: string[]): string[] {
    return collect(value, previous);
  }
}
