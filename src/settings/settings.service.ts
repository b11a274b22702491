import { Injectable, Logger, Optional } from '@nestjs/common';
import { AuditLog } from '../audit/index.js';
import { AppConfig } from '../config/app-config.js';
import { VersionedCache } from '../infra/redis/versioned-cache.js';
import { SettingsRepository, type SettingValue } from './settings.repository.js';
import { SettingsVersion } from './settings-version.js';
import { cacheLookups } from '../infra/telemetry/service-metrics.js';
import type { Actor } from '../common/actor.js';

export interface LoginMethods {
  emailPassword: boolean;
  mobileOtp: boolean;
  emailCode: boolean;
}

type Flag = keyof LoginMethods;

/** The row key of each flag; the names the specification gives them. */
const KEYS: Readonly<Record<Flag, string>> = {
  emailPassword: 'email_password',
  mobileOtp: 'mobile_otp',
  emailCode: 'email_code',
};
const FLAGS = Object.keys(KEYS) as Flag[];

const CACHE_KEY = 'login-methods';

/**
 * The login-method flags, stored in the database and seeded from the configuration on first
 * read. Read on every login, so the value is cached in process while the settings version (see
 * SettingsVersion) is unchanged: one Redis GET, or nothing on the embedded database, instead of
 * a query. A change applies at once on every instance.
 */
/** The flags as the API shows them. */
export interface SettingsResponse {
  email_password: boolean;
  mobile_otp: boolean;
  email_code: boolean;
}

/** A change of the flags; an absent flag is left as it is. */
export type SettingsChange = Partial<SettingsResponse>;

@Injectable()
export class SettingsService {
  /** Bounds how long a cached value can outlive a change whose publication failed. */
  static readonly MAX_AGE_MS = 60_000;
  private readonly logger = new Logger('Settings');
  private readonly cache = new VersionedCache<Readonly<LoginMethods>>({
    maxEntries: 1,
    maxAgeMs: SettingsService.MAX_AGE_MS,
  });

  constructor(
    private readonly repository: SettingsRepository,
    private readonly config: AppConfig,
    private readonly version: SettingsVersion,
    // Optional so the service can be built by hand (the cache tests do); the app always has it.
    @Optional() private readonly audit?: AuditLog,
  ) {}

  async getLoginMethods(): Promise<Readonly<LoginMethods>> {
    if (!this.version.enabled) return this.load();
    // Read the version before the database, so a change that lands in between makes the entry stale.
    const version = await this.version.read();
    const cached = this.cache.get(CACHE_KEY, version);
    cacheLookups.inc({ cache: 'settings', result: cached ? 'hit' : 'miss' });
    if (cached) return cached;
    const value = await this.load();
    this.cache.set(CACHE_KEY, version, value);
    return value;
  }

  /** Changes the flags given and answers all of them; flags left undefined keep their value. */
  async update(partial: Partial<LoginMethods>, actor?: Actor): Promise<Readonly<LoginMethods>> {
    const rows: SettingValue[] = FLAGS.filter((flag) => partial[flag] !== undefined).map((flag) => ({
      key: KEYS[flag],
      value: partial[flag],
    }));
    if (rows.length === 0) return this.getLoginMethods();
    await this.repository.upsert(rows);
    this.cache.delete(CACHE_KEY);
    // After the commit: an instance that sees the new version must find the new value.
    await this.version.bump();
    const value = await this.load();
    this.logger.log(
      `Login methods changed by ${actor?.id ?? 'the system'}: ${rows.map((row) => `${row.key}=${String(row.value)}`).join(', ')}`,
    );
    await this.audit?.record({
      type: 'settings.update',
      actorId: actor?.id ?? null,
      actorKind: actor?.kind,
      targetType: 'settings',
      details: Object.fromEntries(rows.map((row) => [row.key, row.value])),
    });
    return value;
  }

  async getSettings(): Promise<SettingsResponse> {
    return toResponse(await this.getLoginMethods());
  }

  async updateSettings(dto: SettingsChange, actor: Actor): Promise<SettingsResponse> {
    return toResponse(
      await this.update(
        { emailPassword: dto.email_password, mobileOtp: dto.mobile_otp, emailCode: dto.email_code },
        actor,
      ),
    );
  }

  private async load(): Promise<Readonly<LoginMethods>> {
    const keys = FLAGS.map((flag) => KEYS[flag]);
    let rows = await this.repository.findByKeys(keys);
    if (rows.length < keys.length) {
      // First read on this database: the configuration gives the initial values. Concurrent
      // first readers (several instances starting) agree through ON CONFLICT DO NOTHING.
      await this.repository.insertMissing(
        FLAGS.map((flag) => ({ key: KEYS[flag], value: this.config.loginMethods[flag] })),
      );
      rows = await this.repository.findByKeys(keys);
    }
    const byKey = new Map(rows.map((row) => [row.key, row.value]));
    return Object.freeze({
      emailPassword: this.flag(byKey, 'emailPassword'),
      mobileOtp: this.flag(byKey, 'mobileOtp'),
      emailCode: this.flag(byKey, 'emailCode'),
    });
  }

  private flag(values: Map<string, unknown>, flag: Flag): boolean {
    const value = values.get(KEYS[flag]);
    if (typeof value === 'boolean') return value;
    // Only reachable by editing the table by hand; the configured value is the one the operator chose.
    this.logger.warn(`Setting ${KEYS[flag]} is missing or not a boolean; using the configured value.`);
    return this.config.loginMethods[flag];
  }
}

function toResponse(methods: Readonly<LoginMethods>): SettingsResponse {
  return { email_password: methods.emailPassword, mobile_otp: methods.mobileOtp, email_code: methods.emailCode };
}
