import type { EntityManager } from 'typeorm';

import type { OtpEndReason, OtpPurpose } from '../infra/database/entities/otp-code.entity.js';

/** The values of `purpose` and `end_reason`, declared once, with the table's schema. */
export type { OtpEndReason, OtpPurpose };

/**
 * A row of `otp_codes`, the one shape the table's statements answer in: every column aliased to
 * its camelCase name (`code_hash AS "codeHash"`).
 */
export interface OtpCodeRow {
  id: string;
  purpose: OtpPurpose;
  mobile: string;
  /** The account the code signs in; null when the mobile belongs to nobody. */
  userId: string | null;
  /** For two-factor: the `jti` of the temp token this code completes. */
  tempTokenJti: string | null;
  codeHash: string;
  attempts: number;
  clientIp: string | null;
  expiresAt: Date;
  endedAt: Date | null;
  endReason: OtpEndReason | null;
  createdAt: Date;
}

const OTP_CODE_COLUMNS = `id, purpose, mobile, user_id AS "userId", temp_token_jti AS "tempTokenJti",
  code_hash AS "codeHash", attempts, client_ip AS "clientIp", expires_at AS "expiresAt", ended_at AS "endedAt",
  end_reason AS "endReason", created_at AS "createdAt"`;

/** How many codes anyone can ask for were sent lately, to a number and from an address. */
export interface AskedCodesStats {
  lastForMobile: Date | null;
  hourForIp: number;
  firstForIp: Date | null;
}

/**
 * The `otp_codes` table (sign-in codes and second-factor challenges) and the locks that order its
 * writers. Every statement runs on the manager of a transaction the calling flow opened, so these
 * are functions over that manager rather than a service holding a connection.
 */

/**
 * Every code sent to a mobile (a sign-in code, a second-factor code or a mobile-change code) is
 * taken under this transaction-scoped advisory lock, so the cooldown and the hourly cap cannot be raced.
 */
export async function lockMobileForSending(manager: EntityManager, mobile: string): Promise<void> {
  await manager.query(`SELECT pg_advisory_xact_lock(hashtext($1))`, [`otp:mobile:${mobile}`]);
}

/** Parallel password logins of one account take turns at creating its challenge. */
export async function lockChallengesOfUser(manager: EntityManager, userId: string): Promise<void> {
  await manager.query(`SELECT pg_advisory_xact_lock(hashtext($1))`, [`2fa:${userId}`]);
}

/**
 * Every SMS code of the last hour matching a number ($1) or a client address ($2): the codes of
 * otp_codes (sign-in and second factor) and those of mobile changes, which live with the change
 * request. `asked` marks the codes anyone can ask for (send-otp, a mobile change, a
 * re-authentication by SMS, which needs only an access token): they are under the cooldown and
 * the per-address cap; second-factor codes need the password first and spend only the number's budget.
 */
const SENT_CODES = `
  SELECT mobile, client_ip, created_at, purpose IN ('login', 'reauth') AS asked
    FROM otp_codes WHERE created_at > now() - interval '1 hour' AND (mobile = $1 OR client_ip = $2)
  UNION ALL
  SELECT new_value, client_ip, created_at, true
    FROM account_change_requests WHERE kind = 'mobile' AND created_at > now() - interval '1 hour' AND (new_value = $1 OR client_ip = $2)`;

/** Codes of every purpose sent to the number in the last hour, and when the first of them was. */
export async function codesSentToMobileLastHour(
  manager: EntityManager,
  mobile: string,
): Promise<{ sent: number; first: Date | null }> {
  const [stats]: { sent: number; first: Date | null }[] = await manager.query(
    `SELECT count(*)::int AS sent, min(created_at) AS first FROM (${SENT_CODES}) AS sent WHERE mobile = $1`,
    [mobile, null],
  );
  return stats;
}

/** For the codes anyone can ask for: the number's last one, and the address's count and first in the last hour. */
export async function askedCodesLastHour(
  manager: EntityManager,
  mobile: string,
  address: string | null,
): Promise<AskedCodesStats> {
  const [stats]: AskedCodesStats[] = await manager.query(
    `SELECT max(created_at) FILTER (WHERE mobile = $1 AND asked) AS "lastForMobile",
            count(*) FILTER (WHERE client_ip = $2 AND asked)::int AS "hourForIp",
            min(created_at) FILTER (WHERE client_ip = $2 AND asked) AS "firstForIp"
       FROM (${SENT_CODES}) AS sent`,
    [mobile, address],
  );
  return stats;
}

/** A right answer: the code (or challenge) is used and can never match again. */
export async function markCodeUsed(manager: EntityManager, id: string): Promise<void> {
  await manager.query(`UPDATE otp_codes SET ended_at = $2, end_reason = 'used' WHERE id = $1`, [id, new Date()]);
}

/** A wrong answer: one more attempt, and the code is burned when they are used up. */
export async function countWrongAnswer(
  manager: EntityManager,
  id: string,
  attempts: number,
  burned: boolean,
): Promise<void> {
  if (burned) {
    await manager.query(`UPDATE otp_codes SET attempts = $2, ended_at = $3, end_reason = 'burned' WHERE id = $1`, [
      id,
      attempts,
      new Date(),
    ]);
  } else {
    await manager.query(`UPDATE otp_codes SET attempts = $2 WHERE id = $1`, [id, attempts]);
  }
}

/** A new sign-in code ends the number's live ones. */
export async function replaceLiveLoginCodes(manager: EntityManager, mobile: string): Promise<void> {
  await manager.query(
    `UPDATE otp_codes SET ended_at = now(), end_reason = 'replaced'
          WHERE mobile = $1 AND purpose = 'login' AND ended_at IS NULL`,
    [mobile],
  );
}

/**
 * A new code: a sign-in code (`login`, with the attempts the number's last code had used), a
 * second-factor challenge (`2fa`, bound to its temp token's `jti`) or a re-authentication code
 * (`reauth`, hashed with the session it was asked in, sent to the account's own mobile).
 */
export async function insertCode(
  manager: EntityManager,
  code: Pick<OtpCodeRow, 'purpose' | 'mobile' | 'userId' | 'codeHash' | 'clientIp' | 'expiresAt'> &
    Partial<Pick<OtpCodeRow, 'attempts' | 'tempTokenJti'>>,
): Promise<void> {
  await manager.query(
    `INSERT INTO otp_codes (purpose, mobile, user_id, temp_token_jti, code_hash, attempts, client_ip, expires_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`,
    [
      code.purpose,
      code.mobile,
      code.userId,
      code.tempTokenJti ?? null,
      code.codeHash,
      code.attempts ?? 0,
      code.clientIp,
      code.expiresAt,
    ],
  );
}

/** The number's latest sign-in code, locked until the transaction ends. */
export async function lockLatestLoginCode(manager: EntityManager, mobile: string): Promise<OtpCodeRow | null> {
  const [row]: OtpCodeRow[] = await manager.query(
    `SELECT ${OTP_CODE_COLUMNS} FROM otp_codes
      WHERE mobile = $1 AND purpose = 'login'
      ORDER BY created_at DESC LIMIT 1 FOR UPDATE`,
    [mobile],
  );
  return row ?? null;
}

/** The attempts and end of the number's latest sign-in code of the last `seconds`, if any. */
export async function latestLoginCodeWithin(
  manager: EntityManager,
  mobile: string,
  seconds: number,
): Promise<Pick<OtpCodeRow, 'attempts' | 'endReason'> | undefined> {
  const [latest]: Pick<OtpCodeRow, 'attempts' | 'endReason'>[] = await manager.query(
    `SELECT attempts, end_reason AS "endReason" FROM otp_codes
        WHERE mobile = $1 AND purpose = 'login' AND created_at > now() - make_interval(secs => $2)
        ORDER BY created_at DESC LIMIT 1`,
    [mobile, seconds],
  );
  return latest;
}

/**
 * One live code per account and purpose: a new second-factor challenge ends the previous temp
 * token, a new re-authentication code the previous code.
 */
export async function replaceLiveCodes(
  manager: EntityManager,
  userId: string,
  purpose: Exclude<OtpPurpose, 'login'>,
): Promise<void> {
  await manager.query(
    `UPDATE otp_codes SET ended_at = now(), end_reason = 'replaced' WHERE user_id = $1 AND purpose = $2 AND ended_at IS NULL`,
    [userId, purpose],
  );
}

/** The challenge of a temp token, locked until the transaction ends. */
export async function lockChallenge(manager: EntityManager, jti: string): Promise<OtpCodeRow | null> {
  const [row]: OtpCodeRow[] = await manager.query(
    `SELECT ${OTP_CODE_COLUMNS} FROM otp_codes WHERE temp_token_jti = $1 AND purpose = '2fa' FOR UPDATE`,
    [jti],
  );
  return row ?? null;
}

/** The account's latest re-authentication code, locked until the transaction ends. */
export async function lockLatestReauthCode(manager: EntityManager, userId: string): Promise<OtpCodeRow | null> {
  const [row]: OtpCodeRow[] = await manager.query(
    `SELECT ${OTP_CODE_COLUMNS} FROM otp_codes
      WHERE user_id = $1 AND purpose = 'reauth'
      ORDER BY created_at DESC LIMIT 1 FOR UPDATE`,
    [userId],
  );
  return row ?? null;
}
