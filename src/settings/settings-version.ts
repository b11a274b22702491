import { VersionCounters } from '../infra/redis/version-counters.js';

export const SETTINGS_VERSION_KEY = 'settings:v';

/** When cached settings are stale: one counter shared by every instance through VersionCounters. */
export class SettingsVersion {
  constructor(
    private readonly counters: VersionCounters,
    /** One key for every instance of a deployment; tests that share a Redis pass their own. */
    private readonly key = SETTINGS_VERSION_KEY,
  ) {}

  get enabled(): boolean {
    return this.counters.enabled;
  }

  /** The current version, or null when it cannot be read (then do not trust a cache). */
  async read(): Promise<string | null> {
    return (await this.counters.read([this.key]))?.[0] ?? null;
  }

  bump(): Promise<void> {
    return this.counters.bump(this.key);
  }
}

export const settingsVersionProvider = {
  provide: SettingsVersion,
  inject: [VersionCounters],
  useFactory: (counters: VersionCounters) => new SettingsVersion(counters),
};
