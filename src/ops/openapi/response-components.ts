import type { SchemaObject } from '@nestjs/swagger';
import { Permissions } from '@auth-rbac/nest-guard';
import { ref, type Schema } from '../../common/route-doc.js';

/**
 * The shapes the routes answer with, added to the document's components: each route names its
 * own (`@DocumentRoute({ data: ref('TokenPair') })` on its handler). The handlers return plain
 * objects built by their services, not classes, so the shapes are written here once rather than
 * as @ApiProperty classes beside each service; the OpenAPI test checks the fields.
 */
const string = (extra: SchemaObject = {}): SchemaObject => ({ type: 'string', ...extra });
const nullableString = (extra: SchemaObject = {}): SchemaObject => ({ type: 'string', nullable: true, ...extra });
const uuid: SchemaObject = { type: 'string', format: 'uuid' };
const timestamp: SchemaObject = { type: 'string', format: 'date-time' };
const object = (properties: Record<string, Schema>, optional: string[] = []): SchemaObject => ({
  type: 'object',
  required: Object.keys(properties).filter((key) => !optional.includes(key)),
  properties,
});
export const RESPONSE_COMPONENTS: Record<string, SchemaObject> = {
  PublicUser: object({
    id: uuid,
    name: string(),
    email: string({ format: 'email' }),
    mobile: nullableString({ description: 'E.164' }),
  }),
  TokenPair: object({
    access_token: string({ description: 'JWT, also set as the `access_token` cookie' }),
    refresh_token: string({ description: 'JWT, also set as the `refresh_token` cookie' }),
    token_type: string({ enum: ['Bearer'] }),
    expires_in: { type: 'integer', description: "seconds until the access token's expiry" },
    user: ref('PublicUser'),
  }),
  TwoFactorChallenge: object(
    {
      requires_otp: { type: 'boolean', enum: [true] },
      temp_token: string({ description: 'good once, at POST /api/auth/otp/verify-2fa, for 5 minutes' }),
      mobile_masked: nullableString({
        description:
          'first two and last two digits; null when the challenge offers no SMS. With `totp` or `passkey` among the methods no SMS is sent until `POST /api/auth/otp/send-2fa` asks for one',
      }),
      methods: {
        type: 'array',
        items: string({ enum: ['passkey', 'totp', 'sms', 'recovery'] }),
        description:
          'present when the account has an authenticator app or a passkey (after an SMS sign-in, without `sms`)',
      },
      passkey_options: ref('PasskeyRequestOptions'),
    },
    ['methods', 'passkey_options'],
  ),
  Passkey: object({
    id: uuid,
    name: string({ maxLength: 100 }),
    created_at: timestamp,
    last_used_at: { ...timestamp, nullable: true, description: 'the last sign-in or proof with it' },
  }),
  PasskeyCreationOptions: {
    type: 'object',
    description:
      'WebAuthn `PublicKeyCredentialCreationOptionsJSON` (camelCase, binary fields base64url): pass it to `navigator.credentials.create()` (e.g. SimpleWebAuthn `startRegistration({optionsJSON})`).',
    required: ['rp', 'user', 'challenge', 'pubKeyCredParams'],
    properties: {
      rp: object({ id: string(), name: string() }),
      user: object({ id: string(), name: string(), displayName: string() }),
      challenge: string({ description: 'base64url; good once, for 5 minutes' }),
      pubKeyCredParams: { type: 'array', items: { type: 'object' } },
      timeout: { type: 'integer' },
      excludeCredentials: { type: 'array', items: { type: 'object' }, description: "the holder's passkeys" },
      authenticatorSelection: { type: 'object', additionalProperties: true },
      attestation: string({ enum: ['none'] }),
    },
    additionalProperties: true,
  },
  PasskeyRequestOptions: {
    type: 'object',
    description:
      'WebAuthn `PublicKeyCredentialRequestOptionsJSON`: pass it to `navigator.credentials.get()` (e.g. SimpleWebAuthn `startAuthentication({optionsJSON})`).',
    required: ['challenge', 'rpId'],
    properties: {
      challenge: string({ description: 'base64url; good once, for 5 minutes, for this ceremony only' }),
      rpId: string(),
      timeout: { type: 'integer' },
      userVerification: string({ enum: ['required', 'preferred'] }),
      allowCredentials: { type: 'array', items: { type: 'object' } },
    },
    additionalProperties: true,
  },
  Caller: object({
    id: uuid,
    name: string(),
    email: string({ format: 'email' }),
    mobile: nullableString(),
    email_verified: { type: 'boolean', description: 'the address was proved (or vouched for by an administrator)' },
    roles: { type: 'array', items: string(), description: 'role names' },
    permissions: { type: 'array', items: string(), description: 'permission names, from every role' },
  }),
  RoleRef: object({ id: uuid, name: string() }),
  Role: object({
    id: uuid,
    name: string(),
    display_name: nullableString(),
    description: nullableString(),
    is_system: { type: 'boolean' },
    created_at: timestamp,
    updated_at: timestamp,
    permissions: { type: 'array', items: ref('RoleRef'), description: 'by name' },
  }),
  Permission: object({
    id: uuid,
    name: string({ example: Permissions.ContentsView }),
    display_name: nullableString(),
    description: nullableString(),
    group_name: nullableString(),
    is_system: { type: 'boolean' },
    created_at: timestamp,
    updated_at: timestamp,
  }),
  Organization: object({ id: uuid, slug: string(), name: string(), created_at: timestamp, updated_at: timestamp }),
  MyOrganization: {
    allOf: [
      ref('Organization'),
      object({ roles: { type: 'array', items: ref('RoleRef'), description: "the caller's organization roles" } }),
    ],
  },
  OrganizationRef: object({ id: uuid, slug: string(), name: string() }),
  OrganizationMember: object({
    user_id: uuid,
    name: string(),
    email: string({ format: 'email' }),
    roles: { type: 'array', items: ref('RoleRef') },
    joined_at: timestamp,
  }),
  MemberRoles: object({ roles: { type: 'array', items: ref('RoleRef'), description: "the member's roles now" } }),
  Invitation: object({
    id: uuid,
    organization_id: uuid,
    email: string({ format: 'email' }),
    roles: { type: 'array', items: ref('RoleRef') },
    expires_at: timestamp,
    created_at: timestamp,
  }),
  ReceivedInvitation: {
    allOf: [ref('Invitation'), object({ organization: ref('OrganizationRef') })],
  },
  AcceptedInvitation: object({
    organization: { ...ref('OrganizationRef'), nullable: true },
    roles: { type: 'array', items: ref('RoleRef') },
  }),
  OrganizationToken: object({
    access_token: string({ description: 'JWT of the same session, with `org_id`' }),
    token_type: string({ enum: ['Bearer'] }),
    expires_in: { type: 'integer', description: "seconds until the access token's expiry" },
  }),
  User: object({
    id: uuid,
    name: string(),
    email: string({ format: 'email' }),
    mobile: nullableString(),
    email_verified: { type: 'boolean' },
    disabled: { type: 'boolean', description: 'disabled now: set, and not past `disabled_until`' },
    disabled_at: { ...timestamp, nullable: true },
    disabled_until: { ...timestamp, nullable: true, description: 'the disabling ends by itself then' },
    disabled_reason: nullableString({ description: 'for administrators only' }),
    created_at: timestamp,
    updated_at: timestamp,
    roles: { type: 'array', items: ref('RoleRef') },
  }),
  UserRoles: object({ roles: { type: 'array', items: ref('RoleRef') } }),
  Application: object({
    client_id: string({ example: 'web-app' }),
    client_name: string(),
    scopes: { type: 'array', items: string({ example: 'openid' }) },
    granted_at: timestamp,
    updated_at: timestamp,
  }),
  Session: object({
    id: uuid,
    created_at: timestamp,
    last_used_at: { ...timestamp, nullable: true, description: 'the last refresh' },
    ip: nullableString(),
    user_agent: nullableString(),
    client_name: nullableString({
      description: 'the application the session was issued to through the OpenID provider; null for the API',
    }),
    current: { type: 'boolean', description: "the caller's own session" },
  }),
  Content: object({
    id: uuid,
    title: string(),
    body: string(),
    author_id: { ...uuid, nullable: true },
    created_at: timestamp,
    updated_at: timestamp,
  }),
  AuditEvent: object({
    id: uuid,
    type: string({ example: 'auth.login' }),
    actor_id: { ...uuid, nullable: true },
    actor_email: nullableString({ description: "the actor's email, while the account exists" }),
    target_type: nullableString(),
    target_id: nullableString(),
    target_email: nullableString({ description: "a user target's email, while the account exists" }),
    ip: nullableString(),
    user_agent: nullableString(),
    details: { type: 'object', additionalProperties: true },
    created_at: timestamp,
  }),
  Settings: object({
    email_password: { type: 'boolean' },
    mobile_otp: { type: 'boolean' },
    email_code: { type: 'boolean', description: 'sign-in by a code mailed to the address' },
  }),
  PendingVerification: object({
    user: ref('PublicUser'),
    requires_email_verification: { type: 'boolean', enum: [true] },
  }),
  OtpSent: object({ expires_in: { type: 'integer', description: "seconds until the code's expiry" } }),
  TwoFactorSmsSent: object({
    expires_in: { type: 'integer', description: "seconds until the code's (and the challenge's) expiry" },
    mobile_masked: string({ description: "the account's own mobile: first two and last two digits" }),
  }),
  ForgotPasswordAnswer: object({ message: string({ description: 'the same for any email' }) }),
  TotpEnrolment: object({
    otpauth_uri: string({ example: 'otpauth://totp/...' }),
    qr_svg: string({ description: 'the URI as an SVG QR code' }),
  }),
  RecoveryCodes: object({
    recovery_codes: { type: 'array', items: string(), minItems: 10, maxItems: 10, description: 'shown once' },
  }),
  Liveness: object({ status: string({ enum: ['ok'] }) }),
  Readiness: object(
    {
      status: string({ enum: ['ok', 'error', 'shutting_down'] }),
      info: { type: 'object', additionalProperties: true },
      error: { type: 'object', additionalProperties: true },
      details: { type: 'object', additionalProperties: true },
    },
    ['info', 'error', 'details'],
  ),
  Introspection: {
    type: 'object',
    description:
      'RFC 7662, bare JSON. An inactive token (unknown, expired, revoked, not an access token) is `{"active": false}` and nothing more.',
    required: ['active'],
    properties: {
      active: { type: 'boolean' },
      sub: uuid,
      sid: { ...uuid, description: 'the session' },
      exp: { type: 'integer', description: 'seconds since the epoch' },
      email: string({ format: 'email' }),
      name: string(),
      roles: { type: 'array', items: string() },
      permissions: { type: 'array', items: string() },
      token_type: string({ enum: ['access'] }),
      auth_time: { type: 'integer', description: 'when the holder last proved presence, seconds since the epoch' },
      amr: {
        type: 'array',
        items: string({ enum: ['pwd', 'otp', 'sms', 'hwk', 'mfa'] }),
        description: 'RFC 8176: how they proved it',
      },
    },
  },
  TokenResponse: {
    ...object(
      {
        access_token: string(),
        token_type: string({ enum: ['Bearer'] }),
        expires_in: { type: 'integer', description: 'seconds' },
        refresh_token: string({ description: 'refresh_token grant only' }),
      },
      ['refresh_token'],
    ),
    description: 'RFC 6749 §5.1, bare JSON.',
  },
  OAuthError: {
    ...object({ error: string(), error_description: string() }, ['error_description']),
    description:
      'RFC 6749 §5.2, bare JSON: `invalid_request`, `invalid_client` (401, WWW-Authenticate: Basic), `invalid_grant`, `unauthorized_client`, `unsupported_grant_type`; `temporarily_unavailable` with 429.',
  },
  ClientRegistration: {
    ...object(
      {
        client_id: string(),
        client_secret: string({ description: 'confidential clients only; shown once' }),
        client_id_issued_at: { type: 'integer', description: 'seconds since the epoch' },
        client_secret_expires_at: { type: 'integer', enum: [0], description: 'confidential clients only: never' },
        client_name: string(),
        redirect_uris: { type: 'array', items: string({ format: 'uri' }) },
        post_logout_redirect_uris: { type: 'array', items: string({ format: 'uri' }) },
        grant_types: { type: 'array', items: string({ enum: ['authorization_code', 'refresh_token'] }) },
        response_types: { type: 'array', items: string({ enum: ['code'] }) },
        token_endpoint_auth_method: string({ enum: ['none', 'client_secret_basic', 'client_secret_post'] }),
        id_token_signed_response_alg: string({ enum: ['RS256'] }),
        backchannel_logout_uri: string({ format: 'uri' }),
        backchannel_logout_session_required: { type: 'boolean', enum: [true] },
      },
      ['client_secret', 'client_secret_expires_at', 'backchannel_logout_uri', 'backchannel_logout_session_required'],
    ),
    description:
      'RFC 7591 §3.2.1, bare JSON. Refusals: `invalid_redirect_uri`, `invalid_client_metadata` (400), `invalid_token` (401).',
  },
  Revocation: { type: 'object', description: 'RFC 7009: 200 whatever the token; the body is `{}`.' },
  UserInfo: {
    ...object(
      {
        sub: uuid,
        email: string({ format: 'email' }),
        email_verified: { type: 'boolean' },
        name: string(),
        phone_number: string({ description: 'omitted when the account has no mobile' }),
      },
      ['phone_number'],
    ),
    description: 'OpenID Connect Core §5.3.2, bare JSON.',
  },
  Discovery: {
    type: 'object',
    description: 'OpenID Connect Discovery 1.0 / RFC 8414, bare JSON, built from ISSUER.',
    additionalProperties: true,
    required: ['issuer', 'jwks_uri', 'token_endpoint'],
  },
  Client: object({
    client_id: string(),
    name: string(),
    type: string({ enum: ['confidential', 'public'] }),
    redirect_uris: { type: 'array', items: string({ format: 'uri' }) },
    post_logout_redirect_uris: { type: 'array', items: string({ format: 'uri' }) },
    grant_types: {
      type: 'array',
      items: string({ enum: ['authorization_code', 'refresh_token', 'client_credentials'] }),
    },
    first_party: { type: 'boolean', description: 'asks no consent' },
    backchannel_logout_uri: nullableString({ format: 'uri' }),
    token_endpoint_auth_methods: {
      type: 'array',
      items: string({ enum: ['client_secret_basic', 'client_secret_post', 'none'] }),
    },
    dynamically_registered: { type: 'boolean' },
    created_at: timestamp,
    updated_at: timestamp,
  }),
  NewClient: {
    allOf: [
      ref('Client'),
      {
        type: 'object',
        properties: { client_secret: string({ description: 'a confidential client only; shown once, never again' }) },
      },
    ],
  },
  ClientSecret: object({
    client_id: string(),
    client_secret: string({ description: 'shown once; the previous secret is refused at once' }),
  }),
  ClientRoles: object({ client_id: string(), roles: { type: 'array', items: ref('RoleRef') } }),
  Jwk: {
    type: 'object',
    description: 'RFC 7517, a public key only',
    required: ['kty', 'kid', 'alg', 'use'],
    properties: {
      kty: string({ enum: ['EC', 'OKP'] }),
      kid: string(),
      alg: string({ enum: ['ES256', 'EdDSA'] }),
      use: string({ enum: ['sig'] }),
      crv: string({ enum: ['P-256', 'Ed25519'] }),
      x: string(),
      y: string(),
    },
  },
  Jwks: object({ keys: { type: 'array', items: ref('Jwk'), description: 'empty under HS256' } }),
};
