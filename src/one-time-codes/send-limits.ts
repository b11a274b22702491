import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import { AppConfig } from '../config/app-config.js';
import { rateLimited } from '../common/rate-limited.js';
import type { AppException } from '../common/app-exception.js';
import { purposeFacts, purposesOf, type CodePurpose } from './code-purposes.js';
import { OneTimeCodesRepository } from './one-time-codes.repository.js';

const HOUR_MS = 3_600_000;

/**
 * The one send-limit rule of every code, per channel (SMS, mail), counted over the codes of every
 * purpose of that channel: OTP_HOURLY_CAP codes an hour per recipient, whatever the purpose, so no
 * flow can be used to pump messages to a number; and for the codes anyone can ask for,
 * OTP_RESEND_SECONDS between two to one recipient and OTP_HOURLY_CAP an hour per client address.
 * Call under `OneTimeCodes.lockRecipient`, in the transaction that then issues the code.
 */
@Injectable()
export class SendLimits {
  constructor(
    private readonly repository: OneTimeCodesRepository,
    private readonly config: AppConfig,
  ) {}

  /** Throws 429 RATE_LIMITED (with Retry-After) when a code of `purpose` may not go to `recipient` now. */
  async assertMaySend(
    manager: EntityManager,
    purpose: CodePurpose,
    recipient: string,
    address: string | null,
  ): Promise<void> {
    const refusal = await this.refusal(manager, purpose, recipient, address);
    if (refusal) throw refusal;
  }

  /** The refusal a code of `purpose` to `recipient` meets now, or null when it may be sent. */
  async refusal(
    manager: EntityManager,
    purpose: CodePurpose,
    recipient: string,
    address: string | null,
  ): Promise<AppException | null> {
    const facts = purposeFacts(purpose);
    const { resendSeconds, hourlyCap } = this.config.otp;
    const stats = await this.repository.sentLastHour(manager, purposesOf(facts.channel), recipient, address);
    const now = Date.now();
    if (facts.asked && stats.lastAskedForRecipient && resendSeconds > 0) {
      const wait = new Date(stats.lastAskedForRecipient).getTime() + resendSeconds * 1000 - now;
      if (wait > 0) return rateLimited('Wait before asking for another code.', wait / 1000);
    }
    if (stats.sentToRecipient >= hourlyCap) {
      return rateLimited(
        `Too many codes for this ${facts.channel === 'sms' ? 'mobile' : 'address'}; try again later.`,
        (new Date(stats.firstToRecipient!).getTime() + HOUR_MS - now) / 1000,
      );
    }
    if (facts.asked && address && stats.askedFromAddress >= hourlyCap) {
      return rateLimited(
        'Too many codes requested; try again later.',
        (new Date(stats.firstFromAddress!).getTime() + HOUR_MS - now) / 1000,
      );
    }
    return null;
  }
}
