import { Injectable } from '@nestjs/common';

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

/** The client registry, as the provider uses it: lookups, redirect-URI matching, secrets. */
@Injectable()
export class RelyingParties {
  find(_clientId: string): Promise<RelyingParty | null> {
    return Promise.resolve(null);
  }

  matchesRedirectUri(_client: RelyingParty, _uri: string): boolean {
    return false;
  }

  verifySecret(_clientId: string, _secret: string): Promise<RelyingParty | null> {
    return Promise.resolve(null);
  }
}
