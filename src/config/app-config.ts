import { Logger } from '@nestjs/common';
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { availableParallelism } from 'node:os';
import { isCommonPassword } from '../common/common-passwords.js';
import { Environment, parseEnvironment } from './environment.js';
import { keptSecret } from './generated-secret.js';
import { isGuessableSecret } from './secret-strength.js';

/** Production refuses a signing secret shorter than this many bytes. */
export const MIN_JWT_SECRET_BYTES = 32;

export type AppEnv = 'development' | 'test' | 'staging' | 'production';

export interface SeedAccountConfig {
  email?: string;
  password?: string;
  mobile?: string;
}

/**
 * The service's configuration, grouped by concern. Built once from the validated environment;
 * injected everywhere by its class token.
 */
export abstract class AppConfig {
  abstract readonly env: AppEnv;
  /** `development` only: the fixed OTP and other conveniences that must never reach production. */
  abstract readonly isDevelopment: boolean;
  abstract readonly isProduction: boolean;
  abstract readonly http: {
    port: number;
    /** HOST: the address the service listens on (127.0.0.1 outside production unless set). */
    host: string;
    appUrl: string;
    /** ISSUER (default APP_URL): the tokens' `iss` and default `aud`, the discovery document's base. */
    issuer: string;
    bodyLimitBytes: number;
    trustProxy?: number;
    corsOrigins: string[];
  };
  abstract readonly database: {
    url?: string;
    dataDir: string;
    migrationsRun: boolean;
    poolSize: number;
    connectTimeoutMs: number;
    /** DB_PREPARED_STATEMENTS: see src/infra/database/named-statements.ts. */
    preparedStatements: boolean;
  };
  abstract readonly redisUrl?: string;
  /** The only instance on its database: without Redis, caches are invalidated in process. */
  abstract readonly singleInstance: boolean;
  abstract readonly jwt: {
    secret: string;
    secretWasGenerated: boolean;
    accessTokenTtl: number;
    refreshTokenTtl: number;
    sessionMaxAge: number;
    /** REAUTH_MAX_AGE: how old `auth_time` may be for `@RequireFreshAuth()` routes, in seconds. */
    reauthMaxAge: number;
  };
  /** How tokens are signed and which earlier keys still verify (see src/sessions/signing-keys.ts). */
  abstract readonly signing: {
    algorithm: 'HS256' | 'ES256' | 'EdDSA';
    privateKeyPem?: string;
    privateKeyFile?: string;
    /**
     * JWT_PREVIOUS_SECRETS: earlier HS256 secrets, each with the time it was retired (`secret@<unix
     * seconds>`), after which it verifies for REFRESH_TOKEN_EXPIRY more; null when written without one.
     */
    previousSecrets: RetiredSecret[];
    previousPublicKeys: string[];
  };
  /**
   * DATA_KEYS: the root keys of secrets at rest, the sealing one first (src/infra/keys/). Unset,
   * JWT_SECRET and every JWT_PREVIOUS_SECRETS entry, so data sealed before the ring keeps opening.
   */
  abstract readonly dataKeys: { roots: string[]; fromJwtSecrets: boolean };
  /** Other services asking about tokens (POST /api/auth/introspect). */
  abstract readonly introspection: {
    clients: { id: string; secret: string }[];
    ratePerMinute: number;
    /** TOKEN_RATE_PER_MINUTE: per client, at the token and revocation endpoints (each). */
    tokenRatePerMinute: number;
  };
  abstract readonly passwordHashing: {
    memoryKib: number;
    iterations: number;
    parallelism: number;
    concurrency: number;
  };
  abstract readonly resetTokenTtl: number;
  abstract readonly otp: {
    length: number;
    ttl: number;
    /** OTP_MAX_ATTEMPTS: wrong answers before a code is burned. */
    maxAttempts: number;
    resendSeconds: number;
    hourlyCap: number;
  };
  abstract readonly loginMethods: { emailPassword: boolean; mobileOtp: boolean; emailCode: boolean };
  /** REQUIRE_2FA_FOR_PRIVILEGED: privileged accounts must enrol a second factor before anything else. */
  abstract readonly requireSecondFactorForPrivileged: boolean;
  abstract readonly requireEmailVerification: boolean;
  abstract readonly mail: { smtpUrl?: string; from: string };
  abstract readonly sms: {
    transport: 'log' | 'webhook' | 'twilio';
    webhookUrl?: string;
    twilio: { accountSid?: string; authToken?: string; from?: string; apiBase: string };
  };
  abstract readonly outbox: { maxAttempts: number; retryBaseMs: number; pollMs: number };
  abstract readonly limits: {
    /** Per client address and per account, on each `/api/auth` endpoint. */
    ratePerMinute: number;
    /** Per client address on every other route: generous, against floods. */
    globalRatePerMinute: number;
    lockoutThreshold: number;
    lockoutSeconds: number;
  };
  abstract readonly logLevel: Environment['LOG_LEVEL'];
  abstract readonly seed: { admin: SeedAccountConfig; user: SeedAccountConfig };
  /** Admin list requests one caller may have in flight on this instance. */
  abstract readonly adminLists: { concurrency: number };
  abstract readonly audit: { retentionDays: number };
  /** DEFAULT_PHONE_REGION: where a mobile written without a country prefix is read; unset keeps its digits. */
  abstract readonly defaultPhoneRegion?: string;
  /** OIDC_DYNAMIC_REGISTRATION, OIDC_REGISTRATION_TOKEN: RFC 7591 registration, and its initial access token. */
  abstract readonly dynamicRegistration: { enabled: boolean; token?: string };
  /** METRICS_TOKEN guards `/metrics` when set; DOCS_ENABLED serves `/docs`. */
  abstract readonly operations: { metricsToken?: string; docsEnabled: boolean };
  /** Passkeys' relying party: its id (a host), the name authenticators show, the origins of its pages. */
  abstract readonly webauthn: { rpId: string; rpName: string; origins: string[] };
  /** ORGANIZATIONS_SELF_SERVICE: anyone signed in may create one; INVITATION_TTL: an invitation's lifetime, seconds. */
  abstract readonly organizations: { selfService: boolean; invitationTtl: number };
}

/** An HS256 secret taken out of signing, and when (epoch seconds; null when not written down). */
export interface RetiredSecret {
  secret: string;
  retiredAt: number | null;
}

/**
 * One JWT_PREVIOUS_SECRETS entry: `secret@<unix seconds>`, the form `rotate-keys` prints, or a bare
 * secret (accepted outside production, retired when the process starts).
 */
export function parseRetiredSecret(entry: string): RetiredSecret {
  const stamped = /^(.+)@(\d{1,12})$/.exec(entry);
  return stamped ? { secret: stamped[1], retiredAt: Number(stamped[2]) } : { secret: entry, retiredAt: null };
}

export class ConfigurationError extends Error {
  override name = 'ConfigurationError';
}

export function buildAppConfig(env: Environment): AppConfig {
  const appEnv: AppEnv = env.APP_ENV ?? 'development';
  const isProduction = appEnv === 'production';
  const jwt = resolveJwtSecret(env.JWT_SECRET, isProduction);
  if (isProduction) refuseUnsafeProduction(env);
  return Object.freeze({
    env: appEnv,
    // The fixed OTP depends on APP_ENV being exactly "development", never on a default.
    isDevelopment: env.APP_ENV === 'development',
    isProduction,
    http: {
      port: env.PORT,
      host: env.HOST ?? (isProduction ? '0.0.0.0' : '127.0.0.1'),
      appUrl: appUrlOf(env).replace(/\/+$/, ''),
      issuer: (env.ISSUER ?? appUrlOf(env)).replace(/\/+$/, ''),
      bodyLimitBytes: env.BODY_LIMIT_BYTES,
      trustProxy: env.TRUST_PROXY,
      corsOrigins: (env.CORS_ORIGINS ?? '')
        .split(',')
        .map((origin) => origin.trim())
        .filter(Boolean),
    },
    database: {
      url: env.DATABASE_URL,
      dataDir: path.resolve(env.DATA_DIR),
      migrationsRun: env.DB_MIGRATIONS_RUN,
      poolSize: env.DB_POOL_SIZE,
      connectTimeoutMs: env.DB_CONNECT_TIMEOUT_MS,
      preparedStatements: env.DB_PREPARED_STATEMENTS,
    },
    redisUrl: env.REDIS_URL,
    singleInstance: env.SINGLE_INSTANCE,
    jwt: {
      ...jwt,
      accessTokenTtl: env.ACCESS_TOKEN_EXPIRY,
      refreshTokenTtl: env.REFRESH_TOKEN_EXPIRY,
      sessionMaxAge: env.SESSION_MAX_AGE,
      reauthMaxAge: env.REAUTH_MAX_AGE,
    },
    signing: {
      algorithm: env.JWT_ALGORITHM,
      privateKeyPem: env.JWT_PRIVATE_KEY?.replace(/\\n/g, '\n'),
      privateKeyFile: env.JWT_PRIVATE_KEY_FILE,
      previousSecrets: previousSecretsOf(env),
      previousPublicKeys: pemBlocks(env.JWT_PREVIOUS_PUBLIC_KEYS),
    },
    dataKeys: dataKeysOf(env, jwt.secret),
    introspection: {
      clients: serviceClientsOf(env),
      ratePerMinute: env.INTROSPECT_RATE_PER_MINUTE,
      tokenRatePerMinute: env.TOKEN_RATE_PER_MINUTE,
    },
    passwordHashing: {
      memoryKib: env.ARGON2_MEMORY_KIB,
      iterations: env.ARGON2_ITERATIONS,
      parallelism: env.ARGON2_PARALLELISM,
      concurrency: env.ARGON2_CONCURRENCY ?? availableParallelism(),
    },
    resetTokenTtl: env.RESET_TOKEN_EXPIRY,
    otp: {
      length: env.OTP_LENGTH,
      ttl: env.OTP_EXPIRY,
      maxAttempts: env.OTP_MAX_ATTEMPTS,
      resendSeconds: env.OTP_RESEND_SECONDS,
      hourlyCap: env.OTP_HOURLY_CAP,
    },
    loginMethods: {
      emailPassword: env.AUTH_EMAIL_PASSWORD,
      mobileOtp: env.AUTH_MOBILE_OTP,
      emailCode: env.AUTH_EMAIL_CODE,
    },
    requireSecondFactorForPrivileged: env.REQUIRE_2FA_FOR_PRIVILEGED,
    requireEmailVerification: env.REQUIRE_EMAIL_VERIFICATION,
    mail: { smtpUrl: env.SMTP_URL, from: env.MAIL_FROM },
    sms: {
      transport: env.SMS_TRANSPORT,
      webhookUrl: env.SMS_WEBHOOK_URL,
      twilio: {
        accountSid: env.TWILIO_ACCOUNT_SID,
        authToken: env.TWILIO_AUTH_TOKEN,
        from: env.TWILIO_FROM,
        apiBase: env.TWILIO_API_BASE.replace(/\/+$/, ''),
      },
    },
    outbox: { maxAttempts: env.OUTBOX_MAX_ATTEMPTS, retryBaseMs: env.OUTBOX_RETRY_BASE_MS, pollMs: env.OUTBOX_POLL_MS },
    limits: {
      ratePerMinute: env.RATE_LIMIT_PER_MINUTE,
      globalRatePerMinute: env.RATE_LIMIT_GLOBAL_PER_MINUTE,
      lockoutThreshold: env.LOCKOUT_THRESHOLD,
      lockoutSeconds: env.LOCKOUT_SECONDS,
    },
    logLevel: env.LOG_LEVEL,
    seed: {
      admin: { email: env.SEED_ADMIN_EMAIL, password: env.SEED_ADMIN_PASSWORD, mobile: env.SEED_ADMIN_MOBILE },
      user: { email: env.SEED_USER_EMAIL, password: env.SEED_USER_PASSWORD, mobile: env.SEED_USER_MOBILE },
    },
    adminLists: { concurrency: env.ADMIN_LIST_CONCURRENCY },
    audit: { retentionDays: env.AUDIT_RETENTION_DAYS },
    defaultPhoneRegion: env.DEFAULT_PHONE_REGION,
    dynamicRegistration: { enabled: env.OIDC_DYNAMIC_REGISTRATION, token: env.OIDC_REGISTRATION_TOKEN },
    operations: { metricsToken: env.METRICS_TOKEN, docsEnabled: env.DOCS_ENABLED },
    webauthn: webauthnConfig(env),
    organizations: { selfService: env.ORGANIZATIONS_SELF_SERVICE, invitationTtl: env.INVITATION_TTL },
  }) as AppConfig;
}

/** APP_URL, or the service's own address on PORT when it is unset. */
function appUrlOf(env: Environment): string {
  return env.APP_URL ?? `http://localhost:${env.PORT}`;
}

/**
 * The relying party of passkeys. Unset, the service's own `APP_URL` is both the RP ID (its host,
 * without the port) and the one origin; every origin given must be https (or http on localhost)
 * and sit on the RP ID or a subdomain of it, else no browser could ever answer for it.
 */
function webauthnConfig(env: Environment): AppConfig['webauthn'] {
  const appUrl = new URL(appUrlOf(env));
  const rpId = (env.WEBAUTHN_RP_ID ?? appUrl.hostname).toLowerCase();
  const origins = (env.WEBAUTHN_ORIGINS ?? appUrl.origin)
    .split(',')
    .map((origin) => origin.trim())
    .filter(Boolean)
    .map((origin) => {
      let url: URL;
      try {
        url = new URL(origin);
      } catch {
        throw new ConfigurationError(`WEBAUTHN_ORIGINS: ${origin} is not an origin such as https://app.example.com`);
      }
      const host = url.hostname.toLowerCase();
      if (host !== rpId && !host.endsWith(`.${rpId}`)) {
        throw new ConfigurationError(
          `WEBAUTHN_ORIGINS: ${url.origin} is not on WEBAUTHN_RP_ID ${rpId} or a subdomain of it; browsers would refuse it.`,
        );
      }
      return url.origin;
    });
  if (origins.length === 0) throw new ConfigurationError('WEBAUTHN_ORIGINS names no origin.');
  return { rpId, rpName: env.WEBAUTHN_RP_NAME, origins };
}

/**
 * What production refuses to start with, beyond a short JWT_SECRET: a guessable one (judged by a
 * strength estimator, not by length alone), one-time codes written to the log, seed accounts
 * with a common password, and the embedded database unless it is chosen on purpose. Each message
 * names the variable and how to fix it.
 */
function refuseUnsafeProduction(env: Environment): void {
  const problems: string[] = [];
  // A forgotten DATABASE_URL must not quietly put production's accounts into a local folder.
  if (!env.DATABASE_URL && !env.ALLOW_EMBEDDED_DATABASE_IN_PRODUCTION) {
    problems.push(
      'DATABASE_URL is unset, so production would run on the embedded database (one process, its data under ' +
        'DATA_DIR): set DATABASE_URL to a PostgreSQL server, or ALLOW_EMBEDDED_DATABASE_IN_PRODUCTION=true to run ' +
        'on the embedded database on purpose.',
    );
  }
  if (env.JWT_SECRET && isGuessableSecret(env.JWT_SECRET)) {
    problems.push(
      'JWT_SECRET is guessable (repeated, keyboard or dictionary patterns): use random data, e.g. `openssl rand -base64 48`.',
    );
  }
  // Every secret that verifies a token is judged as JWT_SECRET is: one weak key opens the same door.
  previousSecretsOf(env).forEach(({ secret, retiredAt }, index) => {
    if (weakSecret(secret)) {
      problems.push(
        `JWT_PREVIOUS_SECRETS entry ${index + 1} is too short or guessable: a secret that verifies tokens needs ` +
          `at least ${MIN_JWT_SECRET_BYTES} bytes of random data; remove it (its tokens will be refused).`,
      );
    }
    if (retiredAt === null) {
      problems.push(
        `JWT_PREVIOUS_SECRETS entry ${index + 1} has no retirement time: write it as secret@<unix seconds> ` +
          '(as `rotate-keys` prints it), so it stops verifying REFRESH_TOKEN_EXPIRY seconds after that time.',
      );
    }
  });
  dataKeyEntriesOf(env).forEach((entry, index) => {
    if (Buffer.byteLength(entry, 'utf8') < MIN_JWT_SECRET_BYTES) {
      problems.push(
        `DATA_KEYS entry ${index + 1} is shorter than ${MIN_JWT_SECRET_BYTES} bytes: each key of the ring needs ` +
          `at least ${MIN_JWT_SECRET_BYTES} bytes of random data, e.g. \`openssl rand -base64 48\`.`,
      );
    }
  });
  for (const client of serviceClientsOf(env)) {
    if (weakSecret(client.secret)) {
      problems.push(
        `SERVICE_CLIENTS: the secret of client "${client.id}" is too short or guessable: use at least ` +
          `${MIN_JWT_SECRET_BYTES} bytes of random data, e.g. \`openssl rand -base64 48\`.`,
      );
    }
  }
  if (env.SMS_TRANSPORT === 'log') {
    problems.push(
      'SMS_TRANSPORT=log writes one-time codes to the log: set SMS_TRANSPORT=webhook (with SMS_WEBHOOK_URL) or twilio (with TWILIO_ACCOUNT_SID, TWILIO_AUTH_TOKEN, TWILIO_FROM).',
    );
  }
  for (const name of ['SEED_ADMIN_PASSWORD', 'SEED_USER_PASSWORD'] as const) {
    const password = env[name];
    if (password !== undefined && isCommonPassword(password)) {
      problems.push(
        `${name} is on the list of common passwords: choose a long random one, or unset it to create no such account.`,
      );
    }
  }
  if (problems.length > 0)
    throw new ConfigurationError(`Refusing to start in production:\n  - ${problems.join('\n  - ')}`);
}

/** JWT_SECRET's rule, for every other secret that verifies something: long enough, and not guessable. */
function weakSecret(secret: string): boolean {
  return Buffer.byteLength(secret, 'utf8') < MIN_JWT_SECRET_BYTES || isGuessableSecret(secret);
}

function dataKeyEntriesOf(env: Environment): string[] {
  return (env.DATA_KEYS ?? '')
    .split(',')
    .map((entry) => entry.trim())
    .filter(Boolean);
}

/** The ring's roots: DATA_KEYS, or else JWT_SECRET then each previous secret (retired or not: data outlives tokens). */
function dataKeysOf(env: Environment, jwtSecret: string): AppConfig['dataKeys'] {
  const entries = dataKeyEntriesOf(env);
  if (entries.length > 0) return { roots: entries, fromJwtSecrets: false };
  const previous = previousSecretsOf(env).map(({ secret }) => secret);
  return { roots: [...new Set([jwtSecret, ...previous])], fromJwtSecrets: true };
}

function previousSecretsOf(env: Environment): RetiredSecret[] {
  return (env.JWT_PREVIOUS_SECRETS ?? '')
    .split(',')
    .map((secret) => secret.trim())
    .filter(Boolean)
    .map(parseRetiredSecret);
}

function serviceClientsOf(env: Environment): { id: string; secret: string }[] {
  return (env.SERVICE_CLIENTS ?? '')
    .split(',')
    .map((pair) => pair.trim())
    .filter(Boolean)
    .map((pair) => {
      const separator = pair.indexOf(':');
      return { id: pair.slice(0, separator), secret: pair.slice(separator + 1) };
    });
}

function resolveJwtSecret(secret: string | undefined, isProduction: boolean) {
  if (secret && Buffer.byteLength(secret, 'utf8') >= MIN_JWT_SECRET_BYTES) {
    return { secret, secretWasGenerated: false };
  }
  if (isProduction) {
    throw new ConfigurationError(
      secret
        ? `JWT_SECRET is too short: production needs at least ${MIN_JWT_SECRET_BYTES} bytes of random data.`
        : 'JWT_SECRET is required in production (at least 32 bytes of random data, e.g. `openssl rand -base64 48`).',
    );
  }
  if (secret) {
    new Logger('Config').warn(`JWT_SECRET is shorter than ${MIN_JWT_SECRET_BYTES} bytes; production would refuse it.`);
    return { secret, secretWasGenerated: false };
  }
  new Logger('Config').warn(
    'JWT_SECRET is not set: a random secret was generated for this process. Tokens will not survive a restart ' +
      'and other instances will not accept them. Set JWT_SECRET for anything but local development.',
  );
  return { secret: randomBytes(48).toString('base64url'), secretWasGenerated: true };
}

let cached: AppConfig | undefined;

/**
 * Reads and validates `process.env` once per process, after an optional `.env` file in the
 * working directory (whose values never override the real environment). The only reader of
 * `process.env`.
 */
export function loadAppConfig(): AppConfig {
  if (!cached) {
    loadDotEnv();
    cached = buildAppConfig(withKeptSecret(parseEnvironment(process.env)));
  }
  return cached;
}

/**
 * Outside production, a missing JWT_SECRET is the one kept in DATA_DIR (generated there on the
 * first start), so a restart keeps every token, session and second factor. Production still
 * requires the variable.
 */
function withKeptSecret(env: Environment): Environment {
  if (env.JWT_SECRET || env.APP_ENV === 'production') return env;
  const kept = keptSecret(path.resolve(env.DATA_DIR), MIN_JWT_SECRET_BYTES);
  new Logger('Config').log(
    kept.created
      ? `JWT_SECRET is not set: generated one into ${kept.file} (mode 0600); every start with this DATA_DIR reuses it. ` +
          'Set JWT_SECRET for production or for several instances.'
      : `JWT_SECRET is not set: using the one kept in ${kept.file}.`,
  );
  return { ...env, JWT_SECRET: kept.secret };
}

function loadDotEnv(): void {
  try {
    process.loadEnvFile('.env');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
}

/** The PEM blocks of a variable that may hold several, with `\n` escapes read as line breaks. */
function pemBlocks(value: string | undefined): string[] {
  return (value ?? '').replace(/\\n/g, '\n').match(/-----BEGIN [A-Z ]+-----[\s\S]+?-----END [A-Z ]+-----/g) ?? [];
}
