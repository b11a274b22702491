import { plainToInstance, Transform } from 'class-transformer';
import {
  IsBoolean,
  IsIn,
  IsInt,
  IsOptional,
  IsString,
  IsUrl,
  Matches,
  Max,
  Min,
  MinLength,
  validateSync,
} from 'class-validator';
import { phoneRegions } from '../common/normalize.js';

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

/**
 * The raw environment, typed and validated. Every variable of the contract is declared here,
 * and nothing else in the code base reads `process.env`.
 */
export class Environment {
  @IsOptional()
  @IsIn(['development', 'test', 'staging', 'production'])
  APP_ENV?: 'development' | 'test' | 'staging' | 'production';

  @Transform(toInt)
  @IsInt()
  @Min(0)
  @Max(65535)
  PORT = 3000;

  @Transform(emptyToUndefined)
  @IsOptional()
  @IsString()
  @MinLength(1)
  JWT_SECRET?: string;

  @IsIn(['HS256', 'ES256', 'EdDSA'])
  JWT_ALGORITHM: 'HS256' | 'ES256' | 'EdDSA' = 'HS256';

  /** PEM (PKCS#8) private key for ES256 / EdDSA; `\n` escapes are read as line breaks. */
  @Transform(emptyToUndefined)
  @IsOptional()
  @IsString()
  JWT_PRIVATE_KEY?: string;

  @Transform(emptyToUndefined)
  @IsOptional()
  @IsString()
  JWT_PRIVATE_KEY_FILE?: string;

  /** Comma-separated earlier HS256 secrets, still accepted until their tokens expire. */
  @Transform(emptyToUndefined)
  @IsOptional()
  @IsString()
  JWT_PREVIOUS_SECRETS?: string;

  /** Earlier public keys (PEM blocks, one after another), still accepted and published. */
  @Transform(emptyToUndefined)
  @IsOptional()
  @IsString()
  JWT_PREVIOUS_PUBLIC_KEYS?: string;

  /** Introspection clients, `id:secret,...`. */
  @Transform(emptyToUndefined)
  @IsOptional()
  @Matches(/^\s*[^:,\s]+:[^,\s]+\s*(,\s*[^:,\s]+:[^,\s]+\s*)*$/, {
    message: 'SERVICE_CLIENTS must be id:secret pairs separated by commas',
  })
  SERVICE_CLIENTS?: string;

  @Transform(toInt)
  @IsInt()
  @Min(1)
  INTROSPECT_RATE_PER_MINUTE = 60000;

  @Transform(toInt)
  @IsInt()
  @Min(1)
  ACCESS_TOKEN_EXPIRY = 900;

  @Transform(toInt)
  @IsInt()
  @Min(1)
  REFRESH_TOKEN_EXPIRY = 604800;

  @Transform(toInt)
  @IsInt()
  @Min(1)
  RESET_TOKEN_EXPIRY = 3600;

  @Transform(toInt)
  @IsInt()
  @Min(1)
  SESSION_MAX_AGE = 2592000;

  /** How recent a sign-in or re-authentication must be for a sensitive action (seconds). */
  @Transform(toInt)
  @IsInt()
  @Min(0)
  REAUTH_MAX_AGE = 300;

  @Transform(toInt)
  @IsInt()
  @Min(4)
  @Max(10)
  OTP_LENGTH = 6;

  @Transform(toInt)
  @IsInt()
  @Min(1)
  OTP_EXPIRY = 300;

  @Transform(toInt)
  @IsInt()
  @Min(0)
  OTP_RESEND_SECONDS = 60;

  @Transform(toInt)
  @IsInt()
  @Min(1)
  OTP_HOURLY_CAP = 10;

  @Transform(emptyToUndefined)
  @IsOptional()
  @Matches(/^postgres(ql)?:\/\/.+/, {
    message: 'DATABASE_URL must be a postgres:// URL',
  })
  DATABASE_URL?: string;

  @Transform(emptyToUndefined)
  @IsOptional()
  @IsString()
  DATA_DIR = './data';

  @Transform(toBoolean)
  @IsBoolean()
  DB_MIGRATIONS_RUN = true;

  @Transform(toInt)
  @IsInt()
  @Min(1)
  @Max(100)
  DB_POOL_SIZE = 10;

  @Transform(toInt)
  @IsInt()
  @Min(100)
  DB_CONNECT_TIMEOUT_MS = 5000;

  @Transform(emptyToUndefined)
  @IsOptional()
  @Matches(/^rediss?:\/\/.+/, { message: 'REDIS_URL must be a redis:// URL' })
  REDIS_URL?: string;

  @Transform(toBoolean)
  @IsBoolean()
  SINGLE_INSTANCE = false;

  @Transform(toBoolean)
  @IsBoolean()
  AUTH_EMAIL_PASSWORD = true;

  @Transform(toBoolean)
  @IsBoolean()
  AUTH_MOBILE_OTP = false;

  /** A privileged account without a second factor reaches only the enrolment endpoints until it enrols. */
  @Transform(toBoolean)
  @IsBoolean()
  REQUIRE_2FA_FOR_PRIVILEGED = false;

  @IsUrl({ require_tld: false, require_protocol: true })
  APP_URL = 'http://localhost:3000';

  @Transform(emptyToUndefined)
  @IsOptional()
  @Matches(/^smtps?:\/\/.+/, { message: 'SMTP_URL must be an smtp:// or smtps:// URL' })
  SMTP_URL?: string;

  @IsString()
  MAIL_FROM = 'Auth Service <no-reply@localhost>';

  @IsIn(['log', 'webhook', 'twilio'])
  SMS_TRANSPORT: 'log' | 'webhook' | 'twilio' = 'log';

  @Transform(emptyToUndefined)
  @IsOptional()
  @IsUrl({ require_tld: false, require_protocol: true })
  SMS_WEBHOOK_URL?: string;

  @Transform(emptyToUndefined)
  @IsOptional()
  @IsString()
  TWILIO_ACCOUNT_SID?: string;

  @Transform(emptyToUndefined)
  @IsOptional()
  @IsString()
  TWILIO_AUTH_TOKEN?: string;

  @Transform(emptyToUndefined)
  @IsOptional()
  @IsString()
  TWILIO_FROM?: string;

  @IsUrl({ require_tld: false, require_protocol: true })
  TWILIO_API_BASE = 'https://api.twilio.com';

  /** Delivery attempts of a queued SMS or mail before it is given up (and audited). */
  @Transform(toInt)
  @IsInt()
  @Min(1)
  @Max(20)
  OUTBOX_MAX_ATTEMPTS = 5;

  /** The first retry's delay; each further retry waits twice as long. */
  @Transform(toInt)
  @IsInt()
  @Min(10)
  OUTBOX_RETRY_BASE_MS = 2000;

  /** How often the outbox is looked at for retries and other instances' messages. */
  @Transform(toInt)
  @IsInt()
  @Min(50)
  OUTBOX_POLL_MS = 1000;

  @Transform(toInt)
  @IsInt()
  @Min(1)
  RATE_LIMIT_PER_MINUTE = 30;

  @Transform(toInt)
  @IsInt()
  @Min(1)
  RATE_LIMIT_GLOBAL_PER_MINUTE = 1200;

  @Transform(toInt)
  @IsInt()
  @Min(1)
  LOCKOUT_THRESHOLD = 10;

  @Transform(toInt)
  @IsInt()
  @Min(1)
  LOCKOUT_SECONDS = 900;

  @Transform(toInt)
  @IsOptional()
  @IsInt()
  @Min(1)
  @Max(10)
  TRUST_PROXY?: number;

  @Transform(emptyToUndefined)
  @IsOptional()
  @IsString()
  CORS_ORIGINS?: string;

  @Transform(toInt)
  @IsInt()
  @Min(1024)
  @Max(10 * 1024 * 1024)
  BODY_LIMIT_BYTES = 16384;

  @Transform(toInt)
  @IsInt()
  @Min(1024)
  ARGON2_MEMORY_KIB = 19456;

  @Transform(toInt)
  @IsInt()
  @Min(1)
  ARGON2_ITERATIONS = 2;

  @Transform(toInt)
  @IsInt()
  @Min(1)
  ARGON2_PARALLELISM = 1;

  /** Hashes computed at once in this process; unset, one per core. */
  @Transform(toInt)
  @IsOptional()
  @IsInt()
  @Min(1)
  @Max(1024)
  ARGON2_CONCURRENCY?: number;

  @IsIn(['fatal', 'error', 'warn', 'log', 'debug', 'verbose'])
  LOG_LEVEL: 'fatal' | 'error' | 'warn' | 'log' | 'debug' | 'verbose' = 'log';

  /** Admin list requests one caller may have in flight (per instance); past it 429. */
  @Transform(toInt)
  @IsInt()
  @Min(1)
  @Max(1000)
  ADMIN_LIST_CONCURRENCY = 4;

  /** Days the audit table keeps an event; older ones are deleted daily, in batches. */
  @Transform(toInt)
  @IsInt()
  @Min(1)
  AUDIT_RETENTION_DAYS = 365;
  /** ISO 3166-1 alpha-2 region in which a mobile written without a country prefix is read. */
  @Transform(({ value }) => (typeof value === 'string' && value.trim() !== '' ? value.trim().toUpperCase() : undefined))
  @IsOptional()
  @IsIn(phoneRegions(), { message: 'DEFAULT_PHONE_REGION must be an ISO 3166-1 alpha-2 region code such as DE or GB' })
  DEFAULT_PHONE_REGION?: string;

  /** Bearer token `/metrics` asks for when set; unset, metrics are open (keep them off the public network). */
  @Transform(emptyToUndefined)
  @IsOptional()
  @IsString()
  @MinLength(16)
  METRICS_TOKEN?: string;

  @Transform(toBoolean)
  @IsBoolean()
  DOCS_ENABLED = true;

  @Transform(emptyToUndefined) @IsOptional() @IsString() SEED_ADMIN_EMAIL?: string;
  @Transform(emptyToUndefined) @IsOptional() @IsString() SEED_ADMIN_PASSWORD?: string;
  @Transform(emptyToUndefined) @IsOptional() @IsString() SEED_ADMIN_MOBILE?: string;
  @Transform(emptyToUndefined) @IsOptional() @IsString() SEED_USER_EMAIL?: string;
  @Transform(emptyToUndefined) @IsOptional() @IsString() SEED_USER_PASSWORD?: string;
  @Transform(emptyToUndefined) @IsOptional() @IsString() SEED_USER_MOBILE?: string;
}

export class InvalidEnvironmentError extends Error {
  constructor(readonly problems: string[]) {
    super(`Invalid configuration:\n  - ${problems.join('\n  - ')}`);
    this.name = 'InvalidEnvironmentError';
  }
}

/** Validates a raw environment; the error names every offending variable. */
export function parseEnvironment(raw: Record<string, string | undefined>): Environment {
  const known = Object.keys(new Environment());
  const declared = new Set([...known, ...declaredOptionalKeys]);
  const relevant = Object.fromEntries(Object.entries(raw).filter(([key]) => declared.has(key)));
  const env = plainToInstance(Environment, relevant, { exposeDefaultValues: true });
  const errors = validateSync(env, { whitelist: true, forbidUnknownValues: true });
  if (errors.length > 0) {
    throw new InvalidEnvironmentError(
      errors.map((error) => {
        const value = /SECRET|PASSWORD|TOKEN|PRIVATE_KEY|CLIENTS/.test(error.property)
          ? '(hidden)'
          : JSON.stringify(error.value);
        return `${error.property}=${value}: ${Object.values(error.constraints ?? {}).join('; ')}`;
      }),
    );
  }
  return env;
}

// Optional variables have no default, so they are not own keys of a fresh instance.
const declaredOptionalKeys = [
  'APP_ENV',
  'JWT_SECRET',
  'DATABASE_URL',
  'REDIS_URL',
  'SMTP_URL',
  'SMS_WEBHOOK_URL',
  'TWILIO_ACCOUNT_SID',
  'TWILIO_AUTH_TOKEN',
  'TWILIO_FROM',
  'TRUST_PROXY',
  'CORS_ORIGINS',
  'SEED_ADMIN_EMAIL',
  'SEED_ADMIN_PASSWORD',
  'SEED_ADMIN_MOBILE',
  'SEED_USER_EMAIL',
  'SEED_USER_PASSWORD',
  'SEED_USER_MOBILE',
  'DEFAULT_PHONE_REGION',
  'METRICS_TOKEN',
  'JWT_PRIVATE_KEY',
  'JWT_PRIVATE_KEY_FILE',
  'JWT_PREVIOUS_SECRETS',
  'JWT_PREVIOUS_PUBLIC_KEYS',
  'SERVICE_CLIENTS',
  'ARGON2_CONCURRENCY',
];
