import { Transform } from 'class-transformer';
import { IsBoolean, IsIn, IsInt, IsOptional, IsString, IsUrl, Matches, Max, Min, MinLength } from 'class-validator';
import { phoneRegions } from '../common/normalize.js';

/**
 * Every environment variable of the service, declared once: its name (the key), default, parsing
 * and validation (`rules`, written in the order decorators would be), description, and whether it
 * is a secret or required in production. The validation (environment.ts), `.env.example` and the
 * table in docs/configuration.md are derived from it (`npm run config:docs` writes the last two; a
 * unit test fails when they disagree with this file).
 */

const toBoolean = ({ value }: { value: unknown }): unknown => {
  if (typeof value !== 'string') return value;
  const normalized = value.trim().toLowerCase();
  if (['true', '1', 'yes', 'on'].includes(normalized)) return true;
  if (['false', '0', 'no', 'off'].includes(normalized)) return false;
  return value;
};

// Empty strings in .env files mean "unset", not "the empty value".
const emptyToUndefined = ({ value }: { value: unknown }): unknown =>
  typeof value === 'string' && value.trim() === '' ? undefined : value;

const toInt = ({ value }: { value: unknown }): unknown => {
  if (typeof value !== 'string' || value.trim() === '') return value;
  return /^-?\d+$/.test(value.trim()) ? Number(value.trim()) : value;
};

const unset = Transform(emptyToUndefined);
const int = Transform(toInt);
const bool = Transform(toBoolean);
const url = () => IsUrl({ require_tld: false, require_protocol: true });

/** The sections of `.env.example` and of the table, in their order, with a note each may carry. */
export const SECTIONS = {
  runtime: { title: 'Runtime' },
  tokens: { title: 'Tokens' },
  passwords: { title: 'Passwords (Argon2id)' },
  database: { title: 'Database' },
  shared: { title: 'Shared state across instances' },
  loginMethods: { title: 'Login methods', note: 'Initial values of the settings flags, stored in the database.' },
  otp: { title: 'One-time passwords' },
  limits: { title: 'Abuse limits' },
  audit: { title: 'Audit trail' },
  outbox: { title: 'Outbox', note: 'SMS and mail are queued in the database and sent after the response.' },
  mail: { title: 'Mail' },
  sms: { title: 'SMS (one-time codes)' },
  mobiles: { title: 'Mobiles' },
  seed: {
    title: 'Seeded accounts',
    note:
      '`npm run seed`, and the first start on an empty database. Outside production, a missing password is ' +
      'generated and printed once. In production, an account without a password here is not created, and a ' +
      'password from the common-password list stops the start.',
  },
  passkeys: {
    title: 'Passkeys (WebAuthn)',
    note: 'The relying party. Behind a proxy or with front ends on other origins, see docs/passkeys.md.',
  },
  operations: { title: 'Operations' },
  organizations: { title: 'Organizations' },
} as const satisfies Record<string, { title: string; note?: string }>;

export type Section = keyof typeof SECTIONS;

interface Description {
  section: Section;
  /** One or more sentences; `code` in backticks. Rendered as comments and as the table's text. */
  description: string;
  /** The table's default when it is not the value itself (computed, or unset with a meaning). */
  defaultText?: string;
  /** `.env.example`'s value for a variable without a default (written commented out). */
  example?: string;
  /** Written uncommented in `.env.example` (with `example`, or empty). */
  setInExample?: boolean;
  secret?: boolean;
  requiredInProduction?: boolean;
  /** Parsing (class-transformer) and validation (class-validator), in the order decorators would be written. */
  rules: PropertyDecorator[];
}

export interface Declared<T> extends Description {
  readonly default: T;
}

function withDefault(value: number, spec: Description): Declared<number>;
function withDefault(value: boolean, spec: Description): Declared<boolean>;
/** A string, or one of the listed strings when `T` is given. */
function withDefault<T extends string = string>(value: NoInfer<T>, spec: Description): Declared<T>;
function withDefault(value: string | number | boolean, spec: Description): Declared<string | number | boolean> {
  return { ...spec, default: value };
}
const optional = <T>(spec: Description): Declared<T | undefined> => ({ ...spec, default: undefined });

export const VARIABLES = {
  APP_ENV: optional<'development' | 'test' | 'staging' | 'production'>({
    section: 'runtime',
    description:
      '`development`, `test`, `staging` or `production`. `production` refuses to start with a short or guessable ' +
      '`JWT_SECRET`, with `SMS_TRANSPORT=log`, or with a common `SEED_*_PASSWORD`, and creates no seed account ' +
      'without a password; exactly `development` enables the fixed one-time code 123456.',
    defaultText: 'unset: like development, without the fixed code',
    example: 'development',
    setInExample: true,
    rules: [IsOptional(), IsIn(['development', 'test', 'staging', 'production'])],
  }),
  PORT: withDefault(3000, {
    section: 'runtime',
    description: 'HTTP port.',
    rules: [int, IsInt(), Min(0), Max(65535)],
  }),
  JWT_SECRET: optional<string>({
    section: 'tokens',
    description:
      'HS256 signing secret, at least 32 bytes of random data (`openssl rand -base64 48`). Unset outside ' +
      'production: generated once into `DATA_DIR/jwt-secret` (mode 0600) and reused at every start, so tokens ' +
      'and second factors survive a restart.',
    defaultText: 'outside production: kept in `DATA_DIR/jwt-secret`',
    setInExample: true,
    secret: true,
    requiredInProduction: true,
    rules: [unset, IsOptional(), IsString(), MinLength(1)],
  }),
  JWT_ALGORITHM: withDefault<'HS256' | 'ES256' | 'EdDSA'>('HS256', {
    section: 'tokens',
    description:
      '`HS256` (`JWT_SECRET`), `ES256` (P-256) or `EdDSA` (Ed25519). For the last two, a PKCS#8 PEM key in ' +
      '`JWT_PRIVATE_KEY` or `JWT_PRIVATE_KEY_FILE`; with neither, outside production, one is generated once ' +
      'under `DATA_DIR`.',
    rules: [IsIn(['HS256', 'ES256', 'EdDSA'])],
  }),
  JWT_PRIVATE_KEY: optional<string>({
    section: 'tokens',
    description: 'The ES256 or EdDSA signing key, PKCS#8 PEM, inline (`\\n` escapes are read as line breaks).',
    defaultText: 'unset: generated under `DATA_DIR` outside production',
    secret: true,
    rules: [unset, IsOptional(), IsString()],
  }),
  JWT_PRIVATE_KEY_FILE: optional<string>({
    section: 'tokens',
    description: 'The same key in a file; `rotate-keys` writes the new key there.',
    defaultText: 'unset',
    rules: [unset, IsOptional(), IsString()],
  }),
  JWT_PREVIOUS_SECRETS: optional<string>({
    section: 'tokens',
    description:
      'During a rotation: earlier HS256 secrets still accepted, comma-separated, each ' +
      '`secret@<unix seconds of its retirement>` (as `rotate-keys` prints it); each verifies for ' +
      '`REFRESH_TOKEN_EXPIRY` after that. Production refuses a weak one or one without the time.',
    defaultText: 'unset',
    secret: true,
    rules: [unset, IsOptional(), IsString()],
  }),
  DATA_KEYS: optional<string>({
    section: 'tokens',
    description:
      'The key ring for secrets at rest (authenticator-app secrets, one-time-code hashes, the outbox): ' +
      'comma-separated, 32+ random bytes each, read as text; the first seals, every one opens. ' +
      '`npm run cli -- rotate-data-key` re-seals under the first, after which an older one may be dropped. ' +
      'Unset: keys derived from `JWT_SECRET` and `JWT_PREVIOUS_SECRETS`. Production refuses an entry under 32 bytes.',
    defaultText: 'unset: derived from `JWT_SECRET` and `JWT_PREVIOUS_SECRETS`',
    secret: true,
    rules: [unset, IsOptional(), IsString()],
  }),
  JWT_PREVIOUS_PUBLIC_KEYS: optional<string>({
    section: 'tokens',
    description:
      'During a rotation: earlier public keys (PEM blocks, one after another), still accepted and published.',
    defaultText: 'unset',
    rules: [unset, IsOptional(), IsString()],
  }),
  SERVICE_CLIENTS: optional<string>({
    section: 'tokens',
    description:
      'Service clients, `id:secret,...`: they authenticate at `POST /api/auth/introspect`, the token and revocation ' +
      'endpoints and the event stream; production refuses a short or guessable secret. `create-client` stores ' +
      'clients in the database instead.',
    defaultText: 'unset',
    secret: true,
    rules: [
      unset,
      IsOptional(),
      Matches(/^\s*[^:,\s]+:[^,\s]+\s*(,\s*[^:,\s]+:[^,\s]+\s*)*$/, {
        message: 'SERVICE_CLIENTS must be id:secret pairs separated by commas',
      }),
    ],
  }),
  INTROSPECT_RATE_PER_MINUTE: withDefault(60000, {
    section: 'tokens',
    description: "Each introspection client's limit per minute.",
    rules: [int, IsInt(), Min(1)],
  }),
  TOKEN_RATE_PER_MINUTE: withDefault(600, {
    section: 'tokens',
    description: "Each client's limit per minute at `POST /api/auth/token` and at `POST /api/auth/revoke` (each).",
    rules: [int, IsInt(), Min(1)],
  }),
  ACCESS_TOKEN_EXPIRY: withDefault(900, {
    section: 'tokens',
    description: 'Lifetime of an access token, seconds.',
    rules: [int, IsInt(), Min(1)],
  }),
  REFRESH_TOKEN_EXPIRY: withDefault(604800, {
    section: 'tokens',
    description: 'Lifetime of a refresh token, seconds.',
    rules: [int, IsInt(), Min(1)],
  }),
  RESET_TOKEN_EXPIRY: withDefault(3600, {
    section: 'tokens',
    description: 'Lifetime of a password-reset link, seconds.',
    rules: [int, IsInt(), Min(1)],
  }),
  SESSION_MAX_AGE: withDefault(2592000, {
    section: 'tokens',
    description: 'Absolute lifetime of a login session, seconds; rotation stops after it.',
    rules: [int, IsInt(), Min(1)],
  }),
  REAUTH_MAX_AGE: withDefault(300, {
    section: 'tokens',
    description:
      'How recent (`auth_time`, seconds) a sign-in or re-authentication must be to change the email, the mobile ' +
      'or a second factor; older is 403 `REAUTHENTICATION_REQUIRED` (see docs/fresh-authentication.md).',
    rules: [int, IsInt(), Min(0)],
  }),
  OTP_LENGTH: withDefault(6, {
    section: 'otp',
    description: 'Digits of a one-time code.',
    rules: [int, IsInt(), Min(4), Max(10)],
  }),
  OTP_EXPIRY: withDefault(300, {
    section: 'otp',
    description: 'Lifetime of a one-time code, seconds.',
    rules: [int, IsInt(), Min(1)],
  }),
  OTP_MAX_ATTEMPTS: withDefault(3, {
    section: 'otp',
    description:
      'Wrong answers a one-time code takes before it is burned (`OTP_ATTEMPTS_EXCEEDED`): SMS and email sign-in ' +
      'codes, second-factor challenges, re-authentication and mobile-change codes. The specification says 3.',
    rules: [int, IsInt(), Min(1), Max(10)],
  }),
  OTP_RESEND_SECONDS: withDefault(60, {
    section: 'otp',
    description:
      "Cooldown between send-otp codes per mobile, seconds; also forgot-password's and the verification " +
      "mail's interval per address.",
    rules: [int, IsInt(), Min(0)],
  }),
  OTP_HOURLY_CAP: withDefault(10, {
    section: 'otp',
    description:
      'Codes per hour for one mobile (sign-in and second-factor codes together), and send-otp codes per hour ' +
      'for one client address.',
    rules: [int, IsInt(), Min(1)],
  }),
  DATABASE_URL: optional<string>({
    section: 'database',
    description: 'A PostgreSQL server, `postgres://user:password@host:5432/dbname`.',
    defaultText: 'unset: embedded PostgreSQL (PGlite) under `DATA_DIR`',
    example: 'postgres://postgres@127.0.0.1:5432/auth',
    rules: [
      unset,
      IsOptional(),
      Matches(/^postgres(ql)?:\/\/.+/, {
        message: 'DATABASE_URL must be a postgres:// URL',
      }),
    ],
  }),
  DATA_DIR: withDefault('./data', {
    section: 'database',
    description:
      'Where the embedded database, generated signing keys and printed seed passwords are kept (one process at ' +
      'a time: a lock file refuses a second one).',
    rules: [unset, IsOptional(), IsString()],
  }),
  ALLOW_EMBEDDED_DATABASE_IN_PRODUCTION: withDefault(false, {
    section: 'database',
    description:
      'With `APP_ENV=production` and no `DATABASE_URL`, the service refuses to start rather than run on the ' +
      'embedded database (one process, its data in `DATA_DIR`). `true` runs on it on purpose (a single small ' +
      'instance whose `DATA_DIR` is a backed-up volume).',
    rules: [bool, IsBoolean()],
  }),
  DB_MIGRATIONS_RUN: withDefault(true, {
    section: 'database',
    description: 'Apply pending migrations at start.',
    rules: [bool, IsBoolean()],
  }),
  DB_POOL_SIZE: withDefault(10, {
    section: 'database',
    description: 'Connections in the pool.',
    rules: [int, IsInt(), Min(1), Max(100)],
  }),
  DB_CONNECT_TIMEOUT_MS: withDefault(5000, {
    section: 'database',
    description:
      'How long a request waits for a database connection before answering 503 (also the connect timeout while ' +
      'the database is unreachable), milliseconds.',
    rules: [int, IsInt(), Min(100)],
  }),
  DB_PREPARED_STATEMENTS: withDefault(true, {
    section: 'database',
    description:
      'On a PostgreSQL server, send the few statements of every sign-in and refresh as prepared statements, ' +
      'parsed once per connection. false sends them unnamed, for a pooler that does not keep prepared ' +
      'statements per client (PgBouncer in transaction mode before 1.21, or without max_prepared_statements).',
    rules: [bool, IsBoolean()],
  }),
  REDIS_URL: optional<string>({
    section: 'shared',
    description:
      'Rate-limit counters, revocations and caches shared by every instance. The account lockout lives in the ' +
      'database either way.',
    defaultText: 'unset: in process',
    example: 'redis://127.0.0.1:6379',
    rules: [unset, IsOptional(), Matches(/^rediss?:\/\/.+/, { message: 'REDIS_URL must be a redis:// URL' })],
  }),
  SINGLE_INSTANCE: withDefault(false, {
    section: 'shared',
    description:
      'Without `REDIS_URL`: true when this is the only instance on its PostgreSQL server, so callers and settings ' +
      'are cached in process (no query per request); several instances need `REDIS_URL`.',
    rules: [bool, IsBoolean()],
  }),
  AUTH_EMAIL_PASSWORD: withDefault(true, {
    section: 'loginMethods',
    description: 'Sign-in by email or mobile and password (`email_password`).',
    rules: [bool, IsBoolean()],
  }),
  AUTH_MOBILE_OTP: withDefault(false, {
    section: 'loginMethods',
    description:
      'Sign-in by a code sent to the mobile (`mobile_otp`); with the password method, the SMS second factor.',
    rules: [bool, IsBoolean()],
  }),
  AUTH_EMAIL_CODE: withDefault(false, {
    section: 'loginMethods',
    description: 'Sign-in by a code mailed to the address (`email_code`).',
    rules: [bool, IsBoolean()],
  }),
  REQUIRE_2FA_FOR_PRIVILEGED: withDefault(false, {
    section: 'loginMethods',
    description: 'A privileged account without a second factor reaches only the enrolment endpoints until it enrols.',
    rules: [bool, IsBoolean()],
  }),
  REQUIRE_EMAIL_VERIFICATION: withDefault(false, {
    section: 'loginMethods',
    description:
      'Password logins of an account whose email was never verified answer 403 `EMAIL_NOT_VERIFIED`, and ' +
      'registration answers without tokens (the link is mailed either way; see docs/account-lifecycle.md).',
    rules: [bool, IsBoolean()],
  }),
  APP_URL: optional<string>({
    section: 'runtime',
    description: 'Base of the links in mails (password reset, email verification).',
    defaultText: '`http://localhost:${PORT}`',
    rules: [unset, IsOptional(), url()],
  }),
  HOST: optional<string>({
    section: 'runtime',
    description:
      'The address the service listens on. Outside production the default keeps it off the network while it ' +
      'prints the seed passwords; the Docker image sets `0.0.0.0`.',
    defaultText: '`127.0.0.1` outside production, `0.0.0.0` in production',
    rules: [
      unset,
      IsOptional(),
      Matches(/^(\d{1,3}(\.\d{1,3}){3}|[0-9a-f:]+|[a-z0-9]([a-z0-9.-]*[a-z0-9])?)$/i, {
        message: 'HOST must be an address or host name, such as 127.0.0.1 or 0.0.0.0',
      }),
    ],
  }),
  ISSUER: optional<string>({
    section: 'tokens',
    description: "The tokens' `iss` and `aud`, and the discovery documents' issuer and base of every URL they list.",
    defaultText: '`APP_URL`',
    rules: [unset, IsOptional(), url()],
  }),
  OIDC_DYNAMIC_REGISTRATION: withDefault(false, {
    section: 'tokens',
    description:
      "OpenID provider: dynamic client registration (RFC 7591) at discovery's `registration_endpoint`. Clients " +
      'registered there are third-party (consent always asked), never get `client_credentials` or roles. Off: 404.',
    rules: [bool, IsBoolean()],
  }),
  OIDC_REGISTRATION_TOKEN: optional<string>({
    section: 'tokens',
    description:
      'The initial access token dynamic registration requires as `Authorization: Bearer` (16 characters or more). ' +
      'Unset: anyone may register (rate limited per client address).',
    defaultText: 'unset',
    secret: true,
    rules: [unset, IsOptional(), IsString(), MinLength(16)],
  }),
  SMTP_URL: optional<string>({
    section: 'mail',
    description:
      'Mail delivery. Unset: mails are written to the log outside production, and dropped with a warning in it.',
    defaultText: 'unset: mails to the log',
    example: 'smtp://user:pass@smtp.example.com:587',
    rules: [unset, IsOptional(), Matches(/^smtps?:\/\/.+/, { message: 'SMTP_URL must be an smtp:// or smtps:// URL' })],
  }),
  MAIL_FROM: withDefault('Auth Service <no-reply@localhost>', {
    section: 'mail',
    description: "The mails' sender.",
    rules: [IsString()],
  }),
  SMS_TRANSPORT: withDefault<'log' | 'webhook' | 'twilio'>('log', {
    section: 'sms',
    description: '`log` (development: writes the message to the log; production refuses it), `webhook` or `twilio`.',
    rules: [IsIn(['log', 'webhook', 'twilio'])],
  }),
  SMS_WEBHOOK_URL: optional<string>({
    section: 'sms',
    description: 'For `webhook`: POST `{"to": "...", "message": "..."}` to this URL.',
    defaultText: 'unset',
    example: 'https://sms-gateway.internal/send',
    rules: [unset, IsOptional(), url()],
  }),
  TWILIO_ACCOUNT_SID: optional<string>({
    section: 'sms',
    description: "For `twilio`: the account's SID.",
    defaultText: 'unset',
    rules: [unset, IsOptional(), IsString()],
  }),
  TWILIO_AUTH_TOKEN: optional<string>({
    section: 'sms',
    description: "For `twilio`: the account's auth token.",
    defaultText: 'unset',
    secret: true,
    rules: [unset, IsOptional(), IsString()],
  }),
  TWILIO_FROM: optional<string>({
    section: 'sms',
    description: 'For `twilio`: the sending number.',
    defaultText: 'unset',
    rules: [unset, IsOptional(), IsString()],
  }),
  TWILIO_API_BASE: withDefault('https://api.twilio.com', {
    section: 'sms',
    description: "For `twilio`: the API's base URL.",
    rules: [url()],
  }),
  OUTBOX_MAX_ATTEMPTS: withDefault(5, {
    section: 'outbox',
    description: 'Delivery attempts of a queued SMS or mail before it is given up (audited as `message.undelivered`).',
    rules: [int, IsInt(), Min(1), Max(20)],
  }),
  OUTBOX_RETRY_BASE_MS: withDefault(2000, {
    section: 'outbox',
    description: "The first retry's delay, milliseconds; each further retry waits twice as long.",
    rules: [int, IsInt(), Min(10)],
  }),
  OUTBOX_POLL_MS: withDefault(1000, {
    section: 'outbox',
    description: "How often the queue is looked at for retries and for other instances' messages, milliseconds.",
    rules: [int, IsInt(), Min(50)],
  }),
  RATE_LIMIT_PER_MINUTE: withDefault(30, {
    section: 'limits',
    description:
      'Requests per minute on each `/api/auth` endpoint, per client address and per email or mobile in the body.',
    rules: [int, IsInt(), Min(1)],
  }),
  RATE_LIMIT_GLOBAL_PER_MINUTE: withDefault(1200, {
    section: 'limits',
    description: 'Requests per minute per client address on every other route (health checks are never limited).',
    rules: [int, IsInt(), Min(1)],
  }),
  LOCKOUT_THRESHOLD: withDefault(10, {
    section: 'limits',
    description:
      'Consecutive failed password logins of one account before its password logins are refused (429, the right ' +
      'password too) for `LOCKOUT_SECONDS`; a success or a password reset clears it.',
    rules: [int, IsInt(), Min(1)],
  }),
  LOCKOUT_SECONDS: withDefault(900, {
    section: 'limits',
    description: 'How long a locked account stays locked, and how long a failure counts, seconds.',
    rules: [int, IsInt(), Min(1)],
  }),
  TRUST_PROXY: optional<number>({
    section: 'runtime',
    description:
      'Number of proxies in front of the service: the client address (rate limits, sessions, audit) is read that ' +
      'many hops back in `X-Forwarded-For`. Unset: the socket address; the header is ignored.',
    defaultText: 'unset',
    example: '1',
    rules: [int, IsOptional(), IsInt(), Min(1), Max(10)],
  }),
  CORS_ORIGINS: optional<string>({
    section: 'runtime',
    description: 'Comma-separated origins allowed to call with credentials.',
    defaultText: 'unset: none',
    example: 'https://app.example.com',
    rules: [unset, IsOptional(), IsString()],
  }),
  BODY_LIMIT_BYTES: withDefault(16384, {
    section: 'runtime',
    description: 'Largest accepted request body, bytes (413 above).',
    rules: [int, IsInt(), Min(1024), Max(10 * 1024 * 1024)],
  }),
  ARGON2_MEMORY_KIB: withDefault(19456, {
    section: 'passwords',
    description: "Argon2id memory, KiB (the specification's 19 MiB). Lower it only in tests.",
    rules: [int, IsInt(), Min(1024)],
  }),
  ARGON2_ITERATIONS: withDefault(2, {
    section: 'passwords',
    description: 'Argon2id iterations.',
    rules: [int, IsInt(), Min(1)],
  }),
  ARGON2_PARALLELISM: withDefault(1, {
    section: 'passwords',
    description: 'Argon2id parallelism.',
    rules: [int, IsInt(), Min(1)],
  }),
  ARGON2_CONCURRENCY: optional<number>({
    section: 'passwords',
    description:
      'Hashes computed at once in this process; the others wait their turn (more would share the same cores and ' +
      'each hold `ARGON2_MEMORY_KIB`).',
    defaultText: 'one per core',
    example: '2',
    rules: [int, IsOptional(), IsInt(), Min(1), Max(1024)],
  }),
  LOG_LEVEL: withDefault<'fatal' | 'error' | 'warn' | 'log' | 'debug' | 'verbose'>('log', {
    section: 'runtime',
    description:
      "`fatal`, `error`, `warn`, `log`, `debug` or `verbose` (pino's fatal, error, warn, info, debug, trace). " +
      "Logs are JSON lines on standard output, one per request plus the application's own lines.",
    rules: [IsIn(['fatal', 'error', 'warn', 'log', 'debug', 'verbose'])],
  }),
  ADMIN_LIST_CONCURRENCY: withDefault(4, {
    section: 'limits',
    description:
      'Admin list requests (users, roles, permissions, audit events) one caller may have in flight on one ' +
      'instance; past it 429 with `Retry-After`.',
    rules: [int, IsInt(), Min(1), Max(1000)],
  }),
  AUDIT_RETENTION_DAYS: withDefault(365, {
    section: 'audit',
    description: 'Days an audit event is kept; older ones are deleted daily, in batches.',
    rules: [int, IsInt(), Min(1)],
  }),
  DEFAULT_PHONE_REGION: optional<string>({
    section: 'mobiles',
    description:
      'ISO 3166-1 alpha-2 region (`DE`, `GB`) in which a mobile written without `+CC` or `00CC` is read. Unset: ' +
      'such a number is kept as its digits.',
    defaultText: 'unset',
    rules: [
      Transform(({ value }) =>
        typeof value === 'string' && value.trim() !== '' ? value.trim().toUpperCase() : undefined,
      ),
      IsOptional(),
      IsIn(phoneRegions(), {
        message: 'DEFAULT_PHONE_REGION must be an ISO 3166-1 alpha-2 region code such as DE or GB',
      }),
    ],
  }),
  METRICS_TOKEN: optional<string>({
    section: 'operations',
    description:
      'Bearer token `/metrics` requires (16 characters or more). Unset: `/metrics` is open, except in production, ' +
      'where it is 404.',
    defaultText: 'unset',
    secret: true,
    rules: [unset, IsOptional(), IsString(), MinLength(16)],
  }),
  DOCS_ENABLED: withDefault(true, {
    section: 'operations',
    description: 'Serve Swagger UI at `/docs` and the OpenAPI document at `/docs/openapi.json`.',
    rules: [bool, IsBoolean()],
  }),
  WEBAUTHN_RP_ID: optional<string>({
    section: 'passkeys',
    description:
      "The relying party's id: a host, the one the browser sees; the pages' hosts must be it or its subdomains.",
    defaultText: "`APP_URL`'s host",
    example: 'example.com',
    rules: [
      unset,
      IsOptional(),
      Matches(/^[a-z0-9]([a-z0-9.-]{0,251}[a-z0-9])?$/i, {
        message: 'WEBAUTHN_RP_ID must be a host name such as example.com',
      }),
    ],
  }),
  WEBAUTHN_RP_NAME: withDefault('auth-rbac-service', {
    section: 'passkeys',
    description: "The relying party's name an authenticator shows beside the account.",
    rules: [IsString(), MinLength(1)],
  }),
  WEBAUTHN_ORIGINS: optional<string>({
    section: 'passkeys',
    description:
      'Comma-separated origins whose pages use passkeys, each on the RP ID or a subdomain of it (checked at start).',
    defaultText: "`APP_URL`'s origin",
    example: 'https://app.example.com,https://example.com',
    rules: [unset, IsOptional(), IsString()],
  }),
  SEED_ADMIN_EMAIL: optional<string>({
    section: 'seed',
    description: "The seeded administrator's email.",
    defaultText: '`admin@example.com`',
    example: 'admin@example.com',
    rules: [unset, IsOptional(), IsString()],
  }),
  SEED_ADMIN_PASSWORD: optional<string>({
    section: 'seed',
    description: "The seeded administrator's password.",
    defaultText: 'generated outside production; in production, unset: no such account',
    secret: true,
    rules: [unset, IsOptional(), IsString()],
  }),
  SEED_ADMIN_MOBILE: optional<string>({
    section: 'seed',
    description: "The seeded administrator's mobile (the SMS second factor reaches only an account with one).",
    defaultText: 'unset',
    rules: [unset, IsOptional(), IsString()],
  }),
  SEED_USER_EMAIL: optional<string>({
    section: 'seed',
    description: "The seeded user's email.",
    defaultText: '`user@example.com`',
    example: 'user@example.com',
    rules: [unset, IsOptional(), IsString()],
  }),
  SEED_USER_PASSWORD: optional<string>({
    section: 'seed',
    description: "The seeded user's password.",
    defaultText: 'generated outside production; in production, unset: no such account',
    secret: true,
    rules: [unset, IsOptional(), IsString()],
  }),
  SEED_USER_MOBILE: optional<string>({
    section: 'seed',
    description: "The seeded user's mobile.",
    defaultText: 'unset',
    rules: [unset, IsOptional(), IsString()],
  }),
  ORGANIZATIONS_SELF_SERVICE: withDefault(true, {
    section: 'organizations',
    description:
      'Any signed-in person may create an organization (and becomes its `owner`); `false`: only holders of ' +
      '`organizations.create`.',
    rules: [bool, IsBoolean()],
  }),
  INVITATION_TTL: withDefault(604800, {
    section: 'organizations',
    description: "Lifetime of an organization's invitation link, seconds.",
    rules: [int, IsInt(), Min(60)],
  }),
} satisfies Record<string, Declared<unknown>>;

export type VariableName = keyof typeof VARIABLES;

/** The environment as validated: each variable's parsed value, its default when unset. */
export type Environment = { [K in VariableName]: (typeof VARIABLES)[K]['default'] };
