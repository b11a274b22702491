import type { ReferenceObject, SchemaObject } from '@nestjs/swagger';
import { Permissions } from '@auth-rbac/nest-guard';

/**
 * What each endpoint answers, in one table: the shapes (`RESPONSE_COMPONENTS`, added to the
 * document's components) and, per handler (`Controller.method`), what `data` holds in its success
 * envelope (`ENVELOPED_DATA`) or the bare body it sends instead (`BARE_ANSWERS`). The handlers
 * return plain objects built by their services, not classes, so the shapes are written here once
 * rather than as @ApiProperty classes beside each service; the OpenAPI test checks the fields.
 */
type Schema = SchemaObject | ReferenceObject;

const ref = (name: string): ReferenceObject => ({ $ref: `#/components/schemas/${name}` });
const string = (extra: SchemaObject = {}): SchemaObject => ({ type: 'string', ...extra });
const nullableString = (extra: SchemaObject = {}): SchemaObject => ({ type: 'string', nullable: true, ...extra });
const uuid: SchemaObject = { type: 'string', format: 'uuid' };
const timestamp: SchemaObject = { type: 'string', format: 'date-time' };
const object = (properties: Record<string, Schema>, optional: string[] = []): SchemaObject => ({
  type: 'object',
  required: Object.keys(properties).filter((key) => !optional.includes(key)),
  properties,
});
const list = (item: Schema): SchemaObject =>
  object({ items: { type: 'array', items: item }, total: { type: 'integer', minimum: 0 } });
const page = (item: Schema): SchemaObject =>
  object({
    items: { type: 'array', items: item },
    total: { type: 'integer', minimum: 0 },
    page: { type: 'integer', minimum: 1 },
    limit: { type: 'integer', minimum: 1 },
  });
/** `{}`: the answer of a change that has nothing to report. */
const empty: SchemaObject = { type: 'object', additionalProperties: false, properties: {} };

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
      mobile_masked: nullableString({ description: 'first two and last two digits; null when no SMS is sent' }),
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
  Session: object({
    id: uuid,
    created_at: timestamp,
    last_used_at: { ...timestamp, nullable: true, description: 'the last refresh' },
    ip: nullableString(),
    user_agent: nullableString(),
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
    target_type: nullableString(),
    target_id: nullableString(),
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

const tokenPair = ref('TokenPair');

/** `data` of each enveloped success answer, by `Controller.method`. */
export const ENVELOPED_DATA: Record<string, Schema> = {
  'AuthController.register': { oneOf: [tokenPair, ref('PendingVerification')] },
  'EmailVerificationController.verifyEmail': empty,
  'EmailVerificationController.resendVerification': ref('ForgotPasswordAnswer'),
  'EmailCodeController.send': ref('OtpSent'),
  'EmailCodeController.verify': { oneOf: [tokenPair, ref('TwoFactorChallenge')] },
  'AuthController.login': { oneOf: [tokenPair, ref('TwoFactorChallenge')] },
  'AuthController.refresh': tokenPair,
  'AuthController.logout': empty,
  'AuthController.me': ref('Caller'),
  'PasswordResetController.forgotPassword': ref('ForgotPasswordAnswer'),
  'PasswordResetController.resetPassword': empty,
  'OtpController.sendOtp': ref('OtpSent'),
  'OtpController.verifyOtp': { oneOf: [tokenPair, ref('TwoFactorChallenge')] },
  'OtpController.verifyTwoFactor': tokenPair,
  'AccountController.get': ref('Caller'),
  'AccountController.update': ref('Caller'),
  'AccountController.changePassword': empty,
  'AccountController.changeEmail': empty,
  'AccountController.confirmEmail': empty,
  'AccountController.cancelEmailChange': empty,
  'AccountController.changeMobile': ref('OtpSent'),
  'AccountController.confirmMobile': empty,
  'AccountController.listSessions': list(ref('Session')),
  'AccountController.revokeOtherSessions': empty,
  'AccountController.revokeSession': empty,
  'AccountController.startTotp': ref('TotpEnrolment'),
  'AccountController.confirmTotp': ref('RecoveryCodes'),
  'AccountController.disableTotp': empty,
  'PasskeysController.creationOptions': ref('PasskeyCreationOptions'),
  'PasskeysController.register': ref('Passkey'),
  'PasskeysController.list': list(ref('Passkey')),
  'PasskeysController.rename': ref('Passkey'),
  'PasskeysController.remove': empty,
  'PasskeysController.reauthenticationOptions': ref('PasskeyRequestOptions'),
  'PasskeySignInController.options': ref('PasskeyRequestOptions'),
  'PasskeySignInController.verify': tokenPair,
  'AccountController.reauthenticate': { oneOf: [tokenPair, ref('OtpSent')] },
  'AdminSessionsController.list': list(ref('Session')),
  'AdminSessionsController.revokeAll': empty,
  'AdminSessionsController.revokeOne': empty,
  'RolesController.list': list(ref('Role')),
  'RolesController.get': ref('Role'),
  'RolesController.create': ref('Role'),
  'RolesController.update': ref('Role'),
  'RolesController.delete': empty,
  'PermissionsController.list': list(ref('Permission')),
  'PermissionsController.get': ref('Permission'),
  'PermissionsController.create': ref('Permission'),
  'PermissionsController.update': ref('Permission'),
  'PermissionsController.delete': empty,
  'UsersController.list': page(ref('User')),
  'UsersController.get': ref('User'),
  'UsersController.create': ref('User'),
  'UsersController.update': ref('User'),
  'UsersController.delete': empty,
  'UsersController.disable': ref('User'),
  'UsersController.enable': ref('User'),
  'AccountController.delete': empty,
  'UsersController.addRoles': ref('UserRoles'),
  'UsersController.replaceRoles': ref('UserRoles'),
  'UsersController.removeRole': ref('UserRoles'),
  'SettingsController.view': ref('Settings'),
  'SettingsController.update': ref('Settings'),
  'ContentsController.list': page(ref('Content')),
  'ContentsController.get': ref('Content'),
  'ContentsController.create': ref('Content'),
  'ContentsController.update': ref('Content'),
  'ContentsController.delete': empty,
  'AuditController.list': page(ref('AuditEvent')),
  'SecurityEventsController.permissionNames': list(string({ description: 'a permission name' })),
  'ClientRolesController.list': ref('ClientRoles'),
  'ClientRolesController.add': ref('ClientRoles'),
  'ClientRolesController.remove': ref('ClientRoles'),
  'HealthController.live': ref('Liveness'),
  'HealthController.ready': ref('Readiness'),
};

/**
 * Refusals particular to one handler, beside those every handler of its kind gets (400, 429, and
 * 401/403 from its authentication, permissions and freshness).
 */
export const EXTRA_ANSWERS: Record<string, { status: number; description: string }[]> = {
  'AccountController.reauthenticate': [
    {
      status: 401,
      description:
        'INVALID_CREDENTIALS (wrong password, or a passkey answer that does not verify) or INVALID_OTP, OTP_EXPIRED, OTP_ATTEMPTS_EXCEEDED (codes); a wrong proof counts toward the account lockout. UNAUTHENTICATED without a valid access token.',
    },
    { status: 429, description: 'RATE_LIMITED: the account is locked out, or the SMS cooldown or hourly cap holds.' },
  ],
  'AccountController.disableTotp': [
    {
      status: 403,
      description:
        'REAUTHENTICATION_REQUIRED unless the re-authentication included a second factor (`amr` with `otp` or `mfa`).',
    },
    { status: 404, description: 'NOT_FOUND: no authenticator app is enrolled.' },
  ],
  'PasskeysController.register': [
    {
      status: 400,
      description:
        'VALIDATION_FAILED: the answer does not verify (origin, RP ID, challenge used, expired or of another account).',
    },
    { status: 409, description: 'CONFLICT: the passkey is already registered, or the account holds 25.' },
  ],
  'PasskeysController.rename': [{ status: 404, description: 'NOT_FOUND: no such passkey of the caller.' }],
  'PasskeysController.remove': [
    {
      status: 403,
      description:
        "REAUTHENTICATION_REQUIRED: the session's last proof held neither a passkey nor two factors (amr hwk or mfa), or is older than REAUTH_MAX_AGE.",
    },
    { status: 404, description: 'NOT_FOUND: no such passkey of the caller.' },
  ],
  'PasskeySignInController.verify': [
    {
      status: 401,
      description:
        'INVALID_CREDENTIALS, one body for every failure: unknown credential, used or expired challenge, wrong origin or RP ID, bad signature, counter going backwards, no user verification.',
    },
  ],
  'OtpController.verifyOtp': [
    {
      status: 403,
      description:
        'LOGIN_METHOD_DISABLED: SMS sign-in is off, or a privileged account without a second factor; ACCOUNT_DISABLED after a right code.',
    },
    { status: 401, description: 'INVALID_OTP, OTP_EXPIRED or OTP_ATTEMPTS_EXCEEDED.' },
  ],
  'AuthController.login': [
    { status: 401, description: 'INVALID_CREDENTIALS: wrong password or unknown account (same body and timing).' },
    {
      status: 403,
      description:
        'LOGIN_METHOD_DISABLED; ACCOUNT_DISABLED or EMAIL_NOT_VERIFIED (REQUIRE_EMAIL_VERIFICATION), said only after the right password.',
    },
  ],
  'AuthController.refresh': [
    { status: 401, description: 'UNAUTHENTICATED or REFRESH_TOKEN_REUSED.' },
    { status: 403, description: 'ACCOUNT_DISABLED: the session is live but its account is disabled.' },
  ],
  'AuthController.register': [{ status: 409, description: 'CONFLICT: the email or mobile is taken.' }],
  'EmailVerificationController.verifyEmail': [
    {
      status: 400,
      description:
        'CONFIRMATION_TOKEN_INVALID: unknown, expired or used link, or one mailed to an address the account no longer has.',
    },
  ],
  'OtpController.verifyTwoFactor': [
    { status: 401, description: 'INVALID_OTP (a wrong code or passkey answer), OTP_EXPIRED or OTP_ATTEMPTS_EXCEEDED.' },
    { status: 403, description: 'ACCOUNT_DISABLED after a right code.' },
  ],
  'EmailCodeController.send': [{ status: 403, description: 'LOGIN_METHOD_DISABLED: the email_code flag is off.' }],
  'EmailCodeController.verify': [
    { status: 401, description: 'INVALID_OTP (with attempts_remaining), OTP_EXPIRED or OTP_ATTEMPTS_EXCEEDED.' },
    {
      status: 403,
      description:
        'LOGIN_METHOD_DISABLED (flag off, or a privileged account without a second factor); ACCOUNT_DISABLED after a right code.',
    },
  ],
  'UsersController.disable': [
    { status: 404, description: 'NOT_FOUND: no such user.' },
    { status: 409, description: 'CONFLICT: the last enabled holder of the admin role.' },
  ],
  'UsersController.enable': [{ status: 404, description: 'NOT_FOUND: no such user.' }],
  'AccountController.delete': [
    { status: 409, description: 'CONFLICT: the last administrator cannot delete their account.' },
  ],
};

/** Answers sent as they are, without the envelope (standards that fix their own format). */
export const BARE_ANSWERS: Record<string, Schema> = {
  'IntrospectionController.introspect': ref('Introspection'),
  'JwksController.jwks': ref('Jwks'),
  'DiscoveryController.openidConfiguration': ref('Discovery'),
  'DiscoveryController.authorizationServer': ref('Discovery'),
  'OAuthController.token': ref('TokenResponse'),
  'OAuthController.revoke': ref('Revocation'),
  'OAuthController.userinfo': ref('UserInfo'),
};

/** Handlers whose refusals are RFC 6749 §5.2 errors (bare JSON), not the envelope. */
export const OAUTH_ERROR_HANDLERS = new Set(['OAuthController.token', 'OAuthController.revoke']);

/** Pages and scrapes: handlers that answer in a format of their own, with what they serve. */
export const PAGE_ANSWERS: Record<string, { produces: string; description: string; notFound?: string }> = {
  'MetricsController.scrape': { produces: 'text/plain', description: 'Prometheus text exposition format.' },
  'ResetPageController.page': {
    produces: 'text/html',
    description: 'The form that sets a new password with the token of a reset link (`?token=...`).',
  },
  'SecurityEventsController.events': {
    produces: 'text/event-stream',
    description:
      'Server-Sent Events: one Security Event Token (RFC 8417, JWS of the signing key, `typ: secevent+jwt`) per event ' +
      '(`session-revoked`, `credential-change`, `assignment-change`, `role-change`, `keys-rotated`), `id:` the event id; ' +
      '`Last-Event-ID` replays what was missed while it is kept (ACCESS_TOKEN_EXPIRY), else one `reset`; then `ready`; ' +
      'a comment every 15 s. See docs/events.md.',
  },
  'ResetPageController.script': { produces: 'application/javascript', description: "The reset page's script." },
  'ResetPageController.style': { produces: 'text/css', description: "The reset page's style sheet." },
  'PasskeyPageController.page': {
    produces: 'text/html',
    description: 'The account security page: sign in with a passkey (or a password), add, rename and remove passkeys.',
  },
  'PasskeyPageController.script': { produces: 'application/javascript', description: "The security page's script." },
  'PasskeyPageController.webauthn': {
    produces: 'application/javascript',
    description: "SimpleWebAuthn's browser bundle, as the security page loads it.",
  },
  'PasskeyPageController.style': { produces: 'text/css', description: "The security page's style sheet." },
  'ConsolePageController.page': {
    produces: 'text/html',
    description: 'The admin console (a single-page app on the public REST API).',
    notFound: 'NOT_FOUND: the console has not been built (`npm run build`).',
  },
  'ConsolePageController.asset': {
    produces: '*/*',
    description: "A file of the admin console's build (script, style sheet), named by its content's hash.",
    notFound: 'NOT_FOUND: no such file in the build.',
  },
  'ConfirmEmailPageController.page': {
    produces: 'text/html',
    description:
      'The page of an email-change link (`?token=...`): confirms it through `POST /api/account/email/confirm`.',
  },
  'ConfirmEmailPageController.script': { produces: 'application/javascript', description: "The page's script." },
  'CancelEmailChangePageController.page': {
    produces: 'text/html',
    description:
      'The page of the cancel link sent to the old address (`?token=...`): cancels through `POST /api/account/email/cancel`.',
  },
  'CancelEmailChangePageController.script': { produces: 'application/javascript', description: "The page's script." },
  'VerifyEmailPageController.page': {
    produces: 'text/html',
    description: 'The page that verifies an address with the token of a verification link (`?token=...`).',
  },
  'VerifyEmailPageController.script': {
    produces: 'application/javascript',
    description: "The verification page's script.",
  },
  'VerifyEmailPageController.style': {
    produces: 'text/css',
    description: "The verification page's style sheet.",
  },
};

/** Handlers authenticated by HTTP Basic client credentials instead of an access token. */
export const BASIC_AUTH_HANDLERS = new Set([
  'IntrospectionController.introspect',
  'SecurityEventsController.events',
  'SecurityEventsController.permissionNames',
  'OAuthController.token',
  'OAuthController.revoke',
]);
