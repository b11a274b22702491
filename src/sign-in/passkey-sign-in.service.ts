import { Injectable } from '@nestjs/common';
import type { AuthenticationResponseJSON, PublicKeyCredentialRequestOptionsJSON } from '@simplewebauthn/server';
import { PasskeysService, passkeyRefusal } from '../second-factor/index.js';
import { SessionService, type IssuedSession, userVerifyingPasskey } from '../sessions/index.js';
import { UsersRepository } from '../identity/index.js';
import type { ClientInfo } from '../common/client-info.js';

/**
 * Sign-in without a password: a passkey that verifies its user (biometrics or a PIN) is two
 * factors at once, something held and something known or inherent, so it earns a session by
 * itself, also for a privileged account.
 */
@Injectable()
export class PasskeySignInService {
  constructor(
    private readonly passkeys: PasskeysService,
    private readonly users: UsersRepository,
    private readonly sessions: SessionService,
  ) {}

  /**
   * Request options, the same for every input (the optional `email` is not read): any
   * discoverable passkey of this relying party may answer, so the answer tells nobody whether an
   * address has passkeys, how many, or their ids (contract, "Keys at rest, notices").
   */
  async options(_email: string | undefined): Promise<PublicKeyCredentialRequestOptionsJSON> {
    return this.passkeys.authenticationOptions('sign-in', { userId: null }, 'required');
  }

  async verify(response: AuthenticationResponseJSON, client: ClientInfo): Promise<IssuedSession> {
    const verified = await this.passkeys.verifyAssertion(
      response,
      'sign-in',
      { requireUserVerification: true },
      client,
    );
    if (!verified) throw passkeyRefusal();
    const user = await this.users.findSignInAccount(verified.userId);
    // A disabled account is refused by the session's start, after its passkey proved who is asking.
    if (!user) throw passkeyRefusal();
    // Two factors in one (the factor rule asks nothing more of an `hwk` first factor): amr hwk, user, mfa.
    return this.sessions.startWithResponse(user, client, userVerifyingPasskey(), {
      event: { type: 'passkey.login', actorId: user.id, details: { method: 'passkey' } },
    });
  }
}
