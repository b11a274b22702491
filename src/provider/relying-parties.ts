import { Injectable } from '@nestjs/common';
import { ClientsService, matchesRegisteredUri, type Client } from '../clients/index.js';

/** A client of the registry as the provider sees it. */
export interface RelyingParty {
  clientId: string;
  name: string;
  type: 'confidential' | 'public';
  firstParty: boolean;
  grantTypes: readonly string[];
  redirectUris: readonly string[];
  postLogoutRedirectUris: readonly string[];
  backchannelLogoutUri: string | null;
}

/** The one client registry (src/clients), as the provider uses it: lookups and redirect-URI matching. */
@Injectable()
export class RelyingParties {
  constructor(private readonly clients: ClientsService) {}

  async find(clientId: string): Promise<RelyingParty | null> {
    const client = await this.clients.findById(clientId);
    return client && relyingPartyOf(client);
  }

  /** The registry's rule: equal character for character, any port for a registered loopback URI. */
  matchesRedirectUri(client: RelyingParty, uri: string): boolean {
    return matchesRegisteredUri(client.redirectUris, uri);
  }
}

function relyingPartyOf(client: Client): RelyingParty {
  return {
    clientId: client.clientId,
    name: client.name,
    type: client.type,
    firstParty: client.firstParty,
    grantTypes: client.grantTypes,
    redirectUris: client.redirectUris,
    postLogoutRedirectUris: client.postLogoutRedirectUris,
    backchannelLogoutUri: client.backchannelLogoutUri,
  };
}
