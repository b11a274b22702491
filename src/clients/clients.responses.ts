import type { Client } from './clients.service.js';

/** A client as the admin API answers it; never its secret (only the creation and a new secret show one, once). */
export interface ClientResponse {
  client_id: string;
  name: string;
  type: 'confidential' | 'public';
  redirect_uris: string[];
  post_logout_redirect_uris: string[];
  grant_types: string[];
  first_party: boolean;
  backchannel_logout_uri: string | null;
  /** How the client authenticates at the token endpoint: a secret (Basic or post), or none (public, PKCE). */
  token_endpoint_auth_methods: string[];
  dynamically_registered: boolean;
  created_at: Date | null;
  updated_at: Date | null;
}

export function toClientResponse(client: Client): ClientResponse {
  return {
    client_id: client.clientId,
    name: client.name,
    type: client.type,
    redirect_uris: [...client.redirectUris],
    post_logout_redirect_uris: [...client.postLogoutRedirectUris],
    grant_types: [...client.grantTypes],
    first_party: client.firstParty,
    backchannel_logout_uri: client.backchannelLogoutUri,
    token_endpoint_auth_methods: client.type === 'public' ? ['none'] : ['client_secret_basic', 'client_secret_post'],
    dynamically_registered: client.dynamicallyRegistered,
    created_at: client.createdAt,
    updated_at: client.updatedAt,
  };
}
