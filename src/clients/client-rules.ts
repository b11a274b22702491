import { clientUriProblem, type ClientType } from './redirect-uris.js';

/** The grants a client may hold. */
export const GRANT_TYPES = ['authorization_code', 'refresh_token', 'client_credentials'] as const;
export type GrantType = (typeof GRANT_TYPES)[number];

/** What a client gets when it asks for no grant type (the contract's default). */
export const DEFAULT_GRANT_TYPES: readonly GrantType[] = ['authorization_code', 'refresh_token'];

/** A client id: letters, digits, dots, dashes, underscores (as `create-client` and SERVICE_CLIENTS allow). */
export const CLIENT_ID = /^[A-Za-z0-9._-]{1,100}$/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export const CLIENT_NAME_MAX_LENGTH = 100;
export const MAX_URIS = 20;

/** A client's fields as an administrator, the CLI or a registration gives them (before defaults). */
export interface ClientFields {
  name: string;
  type: ClientType;
  redirectUris: string[];
  postLogoutRedirectUris: string[];
  grantTypes?: string[];
  firstParty: boolean;
  backchannelLogoutUri: string | null;
}

/** One broken rule, as a 400 `VALIDATION_FAILED` lists it. */
export type FieldProblem = { field: string; message: string };

/** Why the id cannot name a new client; null when it can. */
export function clientIdProblem(clientId: string): string | null {
  if (!CLIENT_ID.test(clientId)) return 'client_id must be 1 to 100 letters, digits, dots, dashes or underscores';
  // A client's id is the `sub` of its service tokens: it must not be mistaken for a person's.
  if (UUID.test(clientId)) return 'client_id must not look like a user id (a UUID)';
  return null;
}

/**
 * The rules of a client record, beyond each field's shape: every URI by the contract's rules,
 * grant types known and unique, `client_credentials` only for a confidential client, and a
 * redirect URI for a client that signs people in. Answers the problems, empty when none, and the
 * grant types the client gets (the default when none were asked for).
 */
export function checkClientFields(fields: ClientFields): { problems: FieldProblem[]; grantTypes: GrantType[] } {
  const problems: FieldProblem[] = [];
  const name = fields.name.trim();
  if (name.length === 0 || name.length > CLIENT_NAME_MAX_LENGTH) {
    problems.push({ field: 'name', message: `name must be 1 to ${CLIENT_NAME_MAX_LENGTH} characters long` });
  }
  const lists: [string, string[], 'redirect' | 'post_logout_redirect'][] = [
    ['redirect_uris', fields.redirectUris, 'redirect'],
    ['post_logout_redirect_uris', fields.postLogoutRedirectUris, 'post_logout_redirect'],
  ];
  for (const [field, uris, kind] of lists) {
    if (uris.length > MAX_URIS) problems.push({ field, message: `${field} must hold at most ${MAX_URIS} URIs` });
    if (new Set(uris).size !== uris.length) problems.push({ field, message: `${field} must not repeat a URI` });
    uris.forEach((uri, index) => {
      const problem = clientUriProblem(uri, fields.type, kind);
      if (problem) problems.push({ field: `${field}.${index}`, message: `${field}.${index} ${problem}` });
    });
  }
  if (fields.backchannelLogoutUri !== null) {
    const problem = clientUriProblem(fields.backchannelLogoutUri, fields.type, 'backchannel_logout');
    if (problem) problems.push({ field: 'backchannel_logout_uri', message: `backchannel_logout_uri ${problem}` });
  }

  const asked = fields.grantTypes ?? [...DEFAULT_GRANT_TYPES];
  const unknown = asked.filter((grant) => !(GRANT_TYPES as readonly string[]).includes(grant));
  if (asked.length === 0) {
    problems.push({ field: 'grant_types', message: 'grant_types must hold at least one grant type' });
  } else if (unknown.length > 0) {
    problems.push({ field: 'grant_types', message: `grant_types may hold only ${GRANT_TYPES.join(', ')}` });
  } else if (new Set(asked).size !== asked.length) {
    problems.push({ field: 'grant_types', message: 'grant_types must not repeat a grant type' });
  }
  if (asked.includes('client_credentials') && fields.type !== 'confidential') {
    problems.push({ field: 'grant_types', message: 'client_credentials is only for confidential clients' });
  }
  if (asked.includes('authorization_code') && fields.redirectUris.length === 0) {
    problems.push({
      field: 'redirect_uris',
      message: 'redirect_uris must hold at least one URI for the authorization_code grant',
    });
  }
  return { problems, grantTypes: asked as GrantType[] };
}
