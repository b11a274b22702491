import { Injectable } from '@nestjs/common';
import { randomBytes } from 'node:crypto';
import type {
  AuthenticationResponseJSON,
  AuthenticatorTransport,
  PublicKeyCredentialCreationOptionsJSON,
  PublicKeyCredentialRequestOptionsJSON,
  RegistrationResponseJSON,
  VerifiedAuthenticationResponse,
  VerifiedRegistrationResponse,
} from '@simplewebauthn/server';
import { AuditLog } from '../audit/index.js';
import { AppException } from '../common/app-exception.js';
import { AppConfig } from '../config/app-config.js';
import type { ClientInfo } from '../common/client-info.js';
import { sha256Hex } from '../common/token-hash.js';
import { PasskeysRepository, type PasskeyRow, type WebauthnCeremony } from './passkeys.repository.js';

/** How long the options of one ceremony can be answered. */
export const WEBAUTHN_CHALLENGE_TTL_SECONDS = 300;
/** More would only lengthen every `excludeCredentials` and `allowCredentials` list. */
export const MAX_PASSKEYS_PER_ACCOUNT = 25;
export const DEFAULT_PASSKEY_NAME = 'Passkey';

/** A passkey as the account holder sees it: never its key or counter. */
export interface PasskeyView {
  id: string;
  name: string;
  created_at: string;
  last_used_at: string | null;
}

export const passkeyView = (row: PasskeyRow): PasskeyView => ({
  id: row.id,
  name: row.name,
  created_at: row.createdAt.toISOString(),
  last_used_at: row.lastUsedAt?.toISOString() ?? null,
});

/** What a verified assertion proves: which account, with which passkey, and whether it verified its user. */
export interface VerifiedAssertion {
  userId: string;
  passkeyId: string;
  userVerified: boolean;
}

export interface AssertionExpectation {
  /** The account the answer must come from; unset, the one the challenge names, or any (discoverable). */
  userId?: string;
  /** A first factor needs user verification; a second factor needs presence only. */
  requireUserVerification: boolean;
}

/**
 * The WebAuthn library and its helpers, loaded with the first ceremony: they weigh some 25 MB and
 * 100 ms at start, which a service that never sees a passkey should not pay.
 */
const webauthn = () => import('@simplewebauthn/server');
const webauthnHelpers = () => import('@simplewebauthn/server/helpers');

/** The one refusal of every failed assertion, whatever failed: it tells an attacker nothing. */
export const passkeyRefusal = () => new AppException('INVALID_CREDENTIALS', 'Invalid credentials.');

/** Failures of an assertion that are worth telling apart in the audit trail (never in the response). */
type FailureReason =
  'malformed' | 'challenge' | 'unknown_credential' | 'wrong_account' | 'verification' | 'counter_regression';

/**
 * WebAuthn ceremonies with `@simplewebauthn/server`: creation and request options, the
 * registration of a passkey and the verification of an assertion. A challenge is random, stored
 * as its SHA-256 with its ceremony (and account, where one is named), expires after five minutes
 * and is deleted by the one verification that uses it. The signature counter is checked here, not
 * by the library, so that a counter going backwards is audited as such and recorded atomically.
 */
@Injectable()
export class PasskeysService {
  constructor(
    private readonly repository: PasskeysRepository,
    private readonly config: AppConfig,
    private readonly audit: AuditLog,
  ) {}

  list(userId: string): Promise<PasskeyRow[]> {
    return this.repository.listOfUser(userId);
  }

  hasPasskey(userId: string): Promise<boolean> {
    return this.repository.hasPasskey(userId);
  }

  async registrationOptions(user: {
    id: string;
    email: string;
    name: string;
  }): Promise<PublicKeyCredentialCreationOptionsJSON> {
    const existing = await this.repository.listOfUser(user.id);
    const challenge = await this.newChallenge('registration', user.id);
    const { generateRegistrationOptions } = await webauthn();
    return generateRegistrationOptions({
      rpName: this.config.webauthn.rpName,
      rpID: this.config.webauthn.rpId,
      userName: user.email,
      userDisplayName: user.name,
      userID: userHandleOf(user.id),
      challenge,
      timeout: WEBAUTHN_CHALLENGE_TTL_SECONDS * 1000,
      attestationType: 'none',
      excludeCredentials: existing.map((passkey) => ({
        id: passkey.credentialId,
        transports: passkey.transports as AuthenticatorTransport[],
      })),
      // Discoverable credentials only: sign-in options then need no `allowCredentials`, so they
      // tell nobody which addresses have passkeys (contract, "Keys at rest, notices").
      authenticatorSelection: { residentKey: 'required', userVerification: 'preferred' },
    });
  }

  /** Verifies the authenticator's answer to this account's registration options and stores the passkey. */
  async register(
    userId: string,
    response: RegistrationResponseJSON,
    name: string | undefined,
    client: ClientInfo,
  ): Promise<PasskeyRow> {
    const refused = () =>
      new AppException('VALIDATION_FAILED', 'The request is invalid.', [
        { field: 'response', message: 'the passkey could not be verified; ask for new options and try again' },
      ]);
    const challenge = await challengeOf(response.response?.clientDataJSON);
    const owner = challenge && (await this.repository.consumeChallenge(sha256Hex(challenge), 'registration'));
    if (!challenge || !owner || owner.userId !== userId) throw refused();
    const { verifyRegistrationResponse } = await webauthn();
    let verification: VerifiedRegistrationResponse;
    try {
      verification = await verifyRegistrationResponse({
        response,
        expectedChallenge: challenge,
        expectedOrigin: this.config.webauthn.origins,
        expectedRPID: this.config.webauthn.rpId,
        requireUserVerification: false,
      });
    } catch {
      throw refused();
    }
    if (!verification.verified) throw refused();
    if ((await this.repository.listOfUser(userId)).length >= MAX_PASSKEYS_PER_ACCOUNT) {
      throw new AppException('CONFLICT', `An account holds at most ${MAX_PASSKEYS_PER_ACCOUNT} passkeys.`);
    }
    const info = verification.registrationInfo;
    const row = await this.repository.insert({
      userId,
      credentialId: info.credential.id,
      publicKey: info.credential.publicKey,
      counter: info.credential.counter,
      transports: (info.credential.transports ?? []).filter((transport) => /^[a-z-]{1,32}$/.test(transport)),
      deviceType: info.credentialDeviceType,
      backedUp: info.credentialBackedUp,
      name: name ?? DEFAULT_PASSKEY_NAME,
    });
    if (!row) throw new AppException('CONFLICT', 'This passkey is already registered.');
    await this.audit.recordOnOwnAccount('passkey.register', userId, client, {
      passkey_id: row.id,
      device_type: row.deviceType,
      backed_up: row.backedUp,
    });
    return row;
  }

  /**
   * Request options for one ceremony. With `userId` (after a correct first factor, or for the
   * signed-in holder) the passkeys of that account are allowed and the challenge is bound to it;
   * without, any discoverable passkey may answer, and the options are the same for everybody.
   */
  async authenticationOptions(
    ceremony: Exclude<WebauthnCeremony, 'registration'>,
    account: { userId: string | null },
    userVerification: 'required' | 'preferred',
  ): Promise<PublicKeyCredentialRequestOptionsJSON> {
    const passkeys = account.userId ? await this.repository.listOfUser(account.userId) : [];
    const allowCredentials = account.userId
      ? passkeys.map((passkey) => ({
          id: passkey.credentialId,
          transports: passkey.transports as AuthenticatorTransport[],
        }))
      : undefined;
    const challenge = await this.newChallenge(ceremony, account.userId);
    const { generateAuthenticationOptions } = await webauthn();
    return generateAuthenticationOptions({
      rpID: this.config.webauthn.rpId,
      challenge,
      timeout: WEBAUTHN_CHALLENGE_TTL_SECONDS * 1000,
      userVerification,
      allowCredentials,
    });
  }

  /**
   * Verifies an assertion against a live challenge of this ceremony; null (audited, never
   * explained to the caller) when anything is wrong. The challenge is used whatever the outcome.
   */
  async verifyAssertion(
    response: AuthenticationResponseJSON,
    ceremony: Exclude<WebauthnCeremony, 'registration'>,
    expected: AssertionExpectation,
    client: ClientInfo,
  ): Promise<VerifiedAssertion | null> {
    const fail = async (reason: FailureReason, passkey?: PasskeyRow): Promise<null> => {
      await this.audit.record({
        type: reason === 'counter_regression' ? 'passkey.counter_regression' : 'passkey.failure',
        actorId: passkey?.userId ?? expected.userId ?? null,
        targetType: passkey ? 'user' : undefined,
        targetId: passkey?.userId ?? null,
        client,
        details: { ceremony, reason, ...(passkey ? { passkey_id: passkey.id } : {}) },
      });
      return null;
    };
    const challenge = await challengeOf(response.response?.clientDataJSON);
    if (!challenge) return fail('malformed');
    const bound = await this.repository.consumeChallenge(sha256Hex(challenge), ceremony);
    if (!bound) return fail('challenge');
    const passkey = await this.repository.findByCredentialId(response.id);
    if (!passkey) return fail('unknown_credential');
    const owner = expected.userId ?? bound.userId;
    if ((owner !== null && passkey.userId !== owner) || (bound.userId !== null && bound.userId !== passkey.userId))
      return fail('wrong_account', passkey);
    const userHandle = response.response.userHandle;
    if (userHandle && userHandle !== Buffer.from(userHandleOf(passkey.userId)).toString('base64url'))
      return fail('wrong_account', passkey);
    const { verifyAuthenticationResponse } = await webauthn();
    let info: VerifiedAuthenticationResponse['authenticationInfo'];
    try {
      const verification = await verifyAuthenticationResponse({
        response,
        expectedChallenge: challenge,
        expectedOrigin: this.config.webauthn.origins,
        expectedRPID: this.config.webauthn.rpId,
        // The counter is judged below, where a regression can be audited and recorded atomically.
        credential: { id: passkey.credentialId, publicKey: new Uint8Array(passkey.publicKey), counter: 0 },
        requireUserVerification: expected.requireUserVerification,
      });
      if (!verification.verified) return await fail('verification', passkey);
      info = verification.authenticationInfo;
    } catch {
      return fail('verification', passkey);
    }
    const stored = passkey.counter;
    const regressed = (info.newCounter > 0 || stored > 0) && info.newCounter <= stored;
    if (regressed || !(await this.repository.recordUse(passkey.id, stored, info.newCounter)))
      return fail('counter_regression', passkey);
    await this.audit.recordOnOwnAccount('passkey.use', passkey.userId, client, {
      ceremony,
      passkey_id: passkey.id,
      user_verified: info.userVerified,
    });
    return { userId: passkey.userId, passkeyId: passkey.id, userVerified: info.userVerified };
  }

  /** A random challenge's bytes (the options carry them base64url, as the browser signs them); its hash is stored. */
  private async newChallenge(ceremony: WebauthnCeremony, userId: string | null): Promise<Uint8Array<ArrayBuffer>> {
    const challenge = new Uint8Array(randomBytes(32));
    await this.repository.insertChallenge({
      challengeHash: sha256Hex(Buffer.from(challenge).toString('base64url')),
      ceremony,
      userId,
      expiresAt: new Date(Date.now() + WEBAUTHN_CHALLENGE_TTL_SECONDS * 1000),
    });
    return challenge;
  }
}

/** The WebAuthn user handle of an account: its id's bytes (no email or name, as the specification advises). */
function userHandleOf(userId: string): Uint8Array<ArrayBuffer> {
  return new Uint8Array(Buffer.from(userId, 'utf8'));
}

/** The challenge the browser signed, read from clientDataJSON; undefined when it is not there. */
async function challengeOf(clientDataJSON: unknown): Promise<string | undefined> {
  if (typeof clientDataJSON !== 'string') return undefined;
  const { decodeClientDataJSON } = await webauthnHelpers();
  try {
    const challenge = decodeClientDataJSON(clientDataJSON).challenge;
    return typeof challenge === 'string' && /^[A-Za-z0-9_-]{16,128}$/.test(challenge) ? challenge : undefined;
  } catch {
    return undefined;
  }
}
