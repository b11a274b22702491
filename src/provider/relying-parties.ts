import { Injectable } from '@nestjs/common';
import { ClientsService, matchesRegisteredUri, type Client } from '../clients/index.js';

/** A client of the registry as the provider sees it: the part of the record the protocol reads. */
export type RelyingParty = Pick<
  Client,
  | 'clientId'
  | 'name'
  | 'type'
  | 'firstParty'
  | 'grantTypes'
  | 'redirectUris'
  | 'postLogoutRedirectUris'
  | 'backchannelLogoutUri'
>;

/** The one client registry (src/clients), as the provider uses it: lookups and redirect-URI matching. */
@Injectable()
export class RelyingParties {
  constructor(private readonly clients: ClientsService) {}

  async find(clientId: string): Promise<RelyingParty | null> {
    return this.clients.findById(clientId);
  }

  /** The registry's rule: equal character for character, any port for a registered loopback URI. */
  matchesRedirectUri(client: RelyingParty, uri: string): boolean {
    return matchesRegisteredUri(client.redirectUris, uri);
  }
}
