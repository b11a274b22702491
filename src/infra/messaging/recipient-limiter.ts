import { Injectable } from '@nestjs/common';
import { createHash } from 'node:crypto';
import { AppConfig } from '../../config/app-config.js';
import type { OutboxChannel } from './outbox.repository.js';
import { RateLimitStorage } from '../redis/rate-limit-storage.js';

const HOUR_MS = 3_600_000;

/**
 * The per-recipient limit of every message whose recipient a request chose (a reset link, an
 * email-change link, a mobile-change code, a verification mail): at most one per
 * OTP_RESEND_SECONDS and OTP_HOURLY_CAP an hour to one address or number, whoever asks, so no
 * flow and no number of accounts can flood an inbox or a phone. Counted in the rate-limit storage
 * (Redis when REDIS_URL is set, so every instance shares the count), under a digest of the
 * recipient: no address or number is stored in Redis.
 */
@Injectable()
export class RecipientLimiter {
  constructor(
    private readonly storage: RateLimitStorage,
    private readonly config: AppConfig,
  ) {}

  /** Whether one more message may go to this recipient now; a message let through is counted. */
  async admit(channel: OutboxChannel, recipient: string): Promise<boolean> {
    const key = createHash('sha256').update(`recipient\n${channel}\n${recipient.trim().toLowerCase()}`).digest('hex');
    const { resendSeconds, hourlyCap } = this.config.otp;
    if (resendSeconds > 0) {
      const cooldown = await this.storage.increment(`${key}:cooldown`, resendSeconds * 1000, 1, 0);
      if (cooldown.isBlocked) return false;
    }
    const hour = await this.storage.increment(`${key}:hour`, HOUR_MS, hourlyCap, 0);
    return !hour.isBlocked;
  }
}
