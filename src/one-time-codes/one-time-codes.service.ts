import { Injectable } from '@nestjs/common';
import { randomInt } from 'node:crypto';
import type { EntityManager } from 'typeorm';
import { AppException } from '../common/app-exception.js';
import { AppConfig } from '../config/app-config.js';
import { CodeDigest } from './code-digest.js';
import { assertCodeLength } from './code-length.js';
import { codeSettings, purposeFacts, type CodePurpose, type CodeSettings } from './code-purposes.js';
import { OneTimeCodesRepository, type CodeKey, type OneTimeCodeRow } from './one-time-codes.repository.js';

/** The specification's fixed development code. */
const DEVELOPMENT_CODE = '1234567890';

/** What a new code is bound to and where it goes. */
export interface NewCode {
  /** The mobile or address it is sent to; null when it is sent nowhere (a second factor without SMS). */
  recipient: string | null;
  /** The account it proves; null for a recipient of nobody's (nothing is sent, and it matches nothing). */
  userId: string | null;
  /** What the keyed hash binds it to: the recipient, a temp token's `jti`, a session, a pending change. */
  binding: string;
  /** What it completes (a temp token's `jti`, a pending change's id), to find it by. */
  reference?: string;
  clientIp: string | null;
  /** Shorter than the purpose's lifetime, when what it completes ends sooner. */
  ttlSeconds?: number;
}

/** A refusal says whether the code is spent (burned, ended or expired: no answer can use it now). */
export type CodeCheck = { ok: true; row: OneTimeCodeRow } | { ok: false; error: AppException; spent: boolean };

/**
 * Every one-time code, whatever its purpose: made (`issue`), found (`lockLatest`) and answered
 * (`answer`, `judge`) under one rule. Each call runs in the caller's transaction.
 */
@Injectable()
export class OneTimeCodes {
  constructor(
    private readonly repository: OneTimeCodesRepository,
    private readonly digest: CodeDigest,
    private readonly config: AppConfig,
  ) {}

  settings(purpose: CodePurpose): CodeSettings {
    return codeSettings(this.config, purpose);
  }

  /** One sender per recipient at a time: take it before the send limits and `issue`. */
  lockRecipient(manager: EntityManager, recipient: string): Promise<void> {
    return this.repository.lockRecipient(manager, recipient);
  }

  /**
   * A new code: it ends the live one of its account (or, for a sign-in code, of its recipient),
   * and only its keyed hash is stored. A sign-in code starts with the wrong answers of the
   * recipient's last one of LOCKOUT_SECONDS, so asking anew buys no guesses. Answers the code,
   * to be sent in the same transaction. In development (APP_ENV=development) the code is fixed.
   */
  async issue(manager: EntityManager, purpose: CodePurpose, code: NewCode): Promise<string> {
    const facts = purposeFacts(purpose);
    const { length, ttlSeconds } = this.settings(purpose);
    const value = this.newValue(length);
    const attempts =
      facts.inheritsAttempts && code.recipient !== null
        ? await this.repository.recentWrongAnswers(manager, purpose, code.recipient, this.config.limits.lockoutSeconds)
        : 0;
    const live: CodeKey =
      facts.oneLivePer === 'recipient' || code.userId === null
        ? { recipient: code.recipient ?? '' }
        : { userId: code.userId };
    await this.repository.replaceLive(manager, purpose, live);
    await this.repository.insert(manager, {
      purpose,
      recipient: code.recipient,
      userId: code.userId,
      reference: code.reference ?? null,
      codeHash: this.digest.of(purpose, code.binding, value),
      attempts,
      clientIp: code.clientIp,
      expiresAt: new Date(Date.now() + (code.ttlSeconds ?? ttlSeconds) * 1000),
    });
    return value;
  }

  /**
   * A new code in a live row (locked by `lockLatest`), for a recipient asked for later: a
   * second-factor challenge's SMS. The row's attempts, end and single use stay, so asking anew
   * buys no guesses and no time; `askedSends` counts the requests. Answers the code, to be sent in
   * the same transaction.
   */
  async reissue(manager: EntityManager, row: OneTimeCodeRow, recipient: string, binding: string): Promise<string> {
    const value = this.newValue(this.settings(row.purpose).length);
    await this.repository.rekey(manager, row.id, recipient, this.digest.of(row.purpose, binding, value));
    return value;
  }

  /** A code's digits; in development (APP_ENV=development) the fixed code. */
  private newValue(length: number): string {
    return this.config.isDevelopment
      ? DEVELOPMENT_CODE.slice(0, length).padEnd(length, '0')
      : String(randomInt(0, 10 ** length)).padStart(length, '0');
  }

  /** The latest code of `purpose` for a recipient, an account or a reference, locked until the transaction ends. */
  lockLatest(manager: EntityManager, purpose: CodePurpose, key: CodeKey): Promise<OneTimeCodeRow | null> {
    return this.repository.lockLatest(manager, purpose, key);
  }

  /** A code of the wrong length is a malformed request, not a wrong guess: it costs no attempt. */
  assertLength(purpose: CodePurpose, code: string, field: 'otp' | 'code'): void {
    assertCodeLength(code, this.settings(purpose).length, field);
  }

  /**
   * Checks a typed code against its row (locked by `lockLatest` in `manager`'s transaction). A
   * code of a recipient without an account was never sent: it matches nothing, yet counts
   * attempts like any other, so a wrong guess reads the same whether the recipient is known or not.
   */
  answer(
    manager: EntityManager,
    row: OneTimeCodeRow | null,
    binding: string,
    code: string,
    then: 'request a new one' | 'sign in again' = 'request a new one',
  ): Promise<CodeCheck> {
    return this.judge(
      manager,
      row,
      async (live) => live.userId !== null && this.digest.matches(live.codeHash, live.purpose, binding, code),
      then,
    );
  }

  /**
   * The one attempt rule, whatever `isRight` compares (a code, or another answer a row counts: an
   * app code, a recovery code, a passkey): a burned, ended or expired row refuses before anything
   * is judged; a right answer uses the row; a wrong one counts an attempt, and the purpose's last
   * (OTP_MAX_ATTEMPTS) burns it. The outcome is recorded in `manager`'s transaction: the caller
   * commits, then throws the error if there is one, so the count survives the refusal.
   */
  async judge(
    manager: EntityManager,
    row: OneTimeCodeRow | null,
    isRight: (row: OneTimeCodeRow) => Promise<boolean>,
    then: 'request a new one' | 'sign in again' = 'request a new one',
  ): Promise<CodeCheck> {
    if (!row) return { ok: false, error: new AppException('INVALID_OTP', 'The code is wrong.'), spent: true };
    const { maxAttempts } = this.settings(row.purpose);
    const spent = this.spentRefusal(row);
    if (spent) return { ok: false, error: spent, spent: true };
    if (await isRight(row)) {
      await this.repository.markUsed(manager, row.id);
      return { ok: true, row };
    }
    const attempts = row.attempts + 1;
    const burned = attempts >= maxAttempts;
    await this.repository.countWrongAnswer(manager, row.id, attempts, burned);
    return {
      ok: false,
      spent: burned,
      error: new AppException(
        'INVALID_OTP',
        burned ? `The code is wrong, and no attempts remain: ${then}.` : 'The code is wrong.',
        [{ attempts_remaining: maxAttempts - attempts }],
      ),
    };
  }

  /** Why no answer can use this row any more (burned, ended or expired), or null while it is live. */
  spentRefusal(row: OneTimeCodeRow): AppException | null {
    if (row.endReason === 'burned' || row.attempts >= this.settings(row.purpose).maxAttempts) return attemptsExceeded();
    if (row.endedAt) return expired('The code was already used or replaced.');
    if (new Date(row.expiresAt).getTime() <= Date.now()) return expired('The code has expired.');
    return null;
  }

  /** The codes of an address that name no account, deleted with the account that held it. */
  deleteAddressedTo(manager: EntityManager, address: string): Promise<void> {
    return this.repository.deleteAddressedTo(manager, address);
  }

  /** The SMS text: the code is its only run of digits. */
  smsText(code: string): string {
    return `Your sign-in code is ${code}. It expires soon. Never share it with anyone.`;
  }
}

export function attemptsExceeded(): AppException {
  return new AppException('OTP_ATTEMPTS_EXCEEDED', 'Too many wrong codes: request a new code or sign in again.');
}

export function expired(message: string): AppException {
  return new AppException('OTP_EXPIRED', message);
}
