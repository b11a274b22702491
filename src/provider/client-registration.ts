import { Injectable, NotFoundException } from '@nestjs/common';
import { AuditLog } from '../audit/index.js';
import { AppException } from '../common/app-exception.js';
import type { ClientInfo } from '../common/client-info.js';
import { digestsEqual, sha256Hex } from '../common/token-hash.js';
import { AppConfig } from '../config/app-config.js';
import { ClientsService, type ClientFields, type FieldProblem } from '../clients/index.js';

/** RFC 7591 §3.2.2's error codes, and RFC 6750's for a missing or wrong initial access token. */
export type RegistrationErrorCode = 'invalid_redirect_uri' | 'invalid_client_metadata' | 'invalid_token';

/** A refused registration, answered in RFC 7591 §3.2.2's shape (bare JSON). */
export class RegistrationError extends Error {
  constructor(
    readonly status: 400 | 401,
    readonly error: RegistrationErrorCode,
    readonly description: string,
  ) {
    super(description);
  }

  body(): { error: string; error_description: string } {
    return { error: this.error, error_description: this.description };
  }
}

/** The metadata a registration may send (RFC 7591 §2, OpenID Connect Registration, Back-Channel Logout); any other field is refused. */
const KNOWN_METADATA = new Set([
  'redirect_uris',
  'client_name',
  'token_endpoint_auth_method',
  'grant_types',
  'response_types',
  'scope',
  'post_logout_redirect_uris',
  'backchannel_logout_uri',
  'backchannel_logout_session_required',
  'client_uri',
  'logo_uri',
  'tos_uri',
  'policy_uri',
  'contacts',
  'software_id',
  'software_version',
  'application_type',
  'id_token_signed_response_alg',
]);
const AUTH_METHODS = ['none', 'client_secret_basic', 'client_secret_post'];
/** Informational fields kept by nobody: their shape is checked, their value not stored. */
const INFORMATIONAL_STRINGS = [
  'scope',
  'client_uri',
  'logo_uri',
  'tos_uri',
  'policy_uri',
  'software_id',
  'software_version',
  'application_type',
];

/** RFC 7591 §3.2.1: what a registration answers. */
export interface RegistrationResponse {
  client_id: string;
  client_secret?: string;
  client_id_issued_at: number;
  client_secret_expires_at?: 0;
  client_name: string;
  redirect_uris: string[];
  post_logout_redirect_uris: string[];
  grant_types: string[];
  response_types: string[];
  token_endpoint_auth_method: string;
  id_token_signed_response_alg: 'RS256';
  backchannel_logout_uri?: string;
  backchannel_logout_session_required?: true;
}

const metadataError = (description: string) => new RegistrationError(400, 'invalid_client_metadata', description);

/**
 * Dynamic client registration (RFC 7591), for software that registers itself (MCP clients,
 * agents): on only with OIDC_DYNAMIC_REGISTRATION, behind OIDC_REGISTRATION_TOKEN when set. The
 * client goes into the one registry by its rules (the admin API's), as a third-party client:
 * consent always asked, never `client_credentials`, no roles.
 */
@Injectable()
export class ClientRegistration {
  private readonly tokenDigest: string | null;

  constructor(
    private readonly config: AppConfig,
    private readonly clients: ClientsService,
    private readonly audit: AuditLog,
  ) {
    const token = config.dynamicRegistration.token;
    this.tokenDigest = token ? sha256Hex(token) : null;
  }

  get enabled(): boolean {
    return this.config.dynamicRegistration.enabled;
  }

  async register(authorization: string | undefined, body: unknown, client: ClientInfo): Promise<RegistrationResponse> {
    // Off, the endpoint does not exist.
    if (!this.enabled) throw new NotFoundException();
    this.checkInitialAccessToken(authorization);
    const fields = metadataOf(body);
    let registered;
    try {
      registered = await this.clients.register(undefined, fields, 'dynamic');
    } catch (error) {
      if (error instanceof AppException && error.code === 'VALIDATION_FAILED') throw registrationErrorOf(error);
      throw error;
    }
    const { client: made, secret } = registered;
    await this.audit.record({
      type: 'client.create',
      actorId: null,
      targetType: 'client',
      targetId: made.clientId.slice(0, 64),
      client,
      details: { client_id: made.clientId, via: 'dynamic_registration', type: made.type },
    });
    return {
      client_id: made.clientId,
      ...(secret !== null ? { client_secret: secret, client_secret_expires_at: 0 as const } : {}),
      client_id_issued_at: Math.floor((made.createdAt ?? new Date()).getTime() / 1000),
      client_name: made.name,
      redirect_uris: [...made.redirectUris],
      post_logout_redirect_uris: [...made.postLogoutRedirectUris],
      grant_types: [...made.grantTypes],
      response_types: ['code'],
      token_endpoint_auth_method: made.type === 'public' ? 'none' : authMethodOf(body),
      id_token_signed_response_alg: 'RS256',
      ...(made.backchannelLogoutUri !== null
        ? { backchannel_logout_uri: made.backchannelLogoutUri, backchannel_logout_session_required: true as const }
        : {}),
    };
  }

  /** With OIDC_REGISTRATION_TOKEN set, `Authorization: Bearer <it>`, compared in constant time. */
  private checkInitialAccessToken(authorization: string | undefined): void {
    if (this.tokenDigest === null) return;
    const match = /^Bearer ([\x21-\x7e]+)$/.exec(authorization ?? '');
    if (!digestsEqual(sha256Hex(match?.[1] ?? ''), this.tokenDigest) || !match) {
      throw new RegistrationError(401, 'invalid_token', 'A valid initial access token is required.');
    }
  }
}

function authMethodOf(body: unknown): string {
  const method = (body as Record<string, unknown>).token_endpoint_auth_method;
  return typeof method === 'string' ? method : 'client_secret_basic';
}

/** The request's metadata as the registry's fields; anything unknown or malformed is invalid_client_metadata. */
function metadataOf(body: unknown): ClientFields {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw metadataError('The request body must be a JSON object of client metadata.');
  }
  const metadata = body as Record<string, unknown>;
  const unknown = Object.keys(metadata).filter((key) => !KNOWN_METADATA.has(key));
  if (unknown.length > 0) throw metadataError(`Unknown client metadata: ${unknown.slice(0, 5).join(', ')}.`);
  const strings = (field: string, required = false): string[] => {
    const value = metadata[field];
    if (value === undefined && !required) return [];
    if (!Array.isArray(value) || !value.every((item) => typeof item === 'string') || value.length > 20) {
      const error = `${field} must be an array of at most 20 strings.`;
      throw field === 'redirect_uris'
        ? new RegistrationError(400, 'invalid_redirect_uri', error)
        : metadataError(error);
    }
    return value as string[];
  };
  const text = (field: string, max = 2000): string | undefined => {
    const value = metadata[field];
    if (value === undefined) return undefined;
    if (typeof value !== 'string' || value.length > max) throw metadataError(`${field} must be a string.`);
    return value;
  };
  for (const field of INFORMATIONAL_STRINGS) text(field);
  strings('contacts');
  const method = text('token_endpoint_auth_method') ?? 'client_secret_basic';
  if (!AUTH_METHODS.includes(method)) {
    throw metadataError(`token_endpoint_auth_method must be one of ${AUTH_METHODS.join(', ')}.`);
  }
  const responseTypes = strings('response_types');
  if (responseTypes.some((type) => type !== 'code')) throw metadataError('response_types may hold only code.');
  const alg = text('id_token_signed_response_alg');
  if (alg !== undefined && alg !== 'RS256') throw metadataError('id_token_signed_response_alg must be RS256.');
  const sessionRequired = metadata.backchannel_logout_session_required;
  if (sessionRequired !== undefined && typeof sessionRequired !== 'boolean') {
    throw metadataError('backchannel_logout_session_required must be a boolean.');
  }
  const grantTypes = metadata.grant_types === undefined ? undefined : strings('grant_types');
  if (grantTypes?.includes('client_credentials')) {
    throw metadataError('client_credentials is not for a dynamically registered client.');
  }
  const name = text('client_name', 100);
  return {
    name: name ?? 'Unnamed application',
    type: method === 'none' ? 'public' : 'confidential',
    redirectUris: strings('redirect_uris', true),
    postLogoutRedirectUris: strings('post_logout_redirect_uris'),
    grantTypes,
    firstParty: false,
    backchannelLogoutUri: text('backchannel_logout_uri') ?? null,
  };
}

/** The registry's refusal as RFC 7591's: a redirect URI's problem is invalid_redirect_uri, any other invalid_client_metadata. */
function registrationErrorOf(error: AppException): RegistrationError {
  const problems = (error.details ?? []) as FieldProblem[];
  const redirect = problems.find(
    (problem) => problem.field === 'redirect_uris' || problem.field.startsWith('redirect_uris.'),
  );
  if (redirect) return new RegistrationError(400, 'invalid_redirect_uri', `${redirect.message}.`);
  const first = problems[0];
  return metadataError(first ? `${first.message}.` : 'The client metadata is invalid.');
}
