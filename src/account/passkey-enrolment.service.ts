import { Injectable } from '@nestjs/common';
import type { AuthUser } from '@auth-rbac/nest-guard';
import type {
  PublicKeyCredentialCreationOptionsJSON,
  PublicKeyCredentialRequestOptionsJSON,
  RegistrationResponseJSON,
} from '@simplewebauthn/server';
import { AuditLog } from '../audit/index.js';
import { SignInMethodNotices } from './sign-in-method-notices.js';
import { AuthzVersions } from '../rbac/index.js';
import type { ClientInfo } from '../common/client-info.js';
import { AppException } from '../common/app-exception.js';
import { PasskeysRepository, PasskeysService, passkeyView, type PasskeyView } from '../second-factor/index.js';
import { UsersRepository } from '../identity/index.js';
import type { RegisterPasskeyDto } from './account.dto.js';

/** `amr` values that let a session remove a passkey: a passkey was among its last proof, or two factors were. */
const PASSKEY_REMOVAL_AMR = ['hwk', 'mfa'];

/** The holder's passkeys: register (with fresh authentication), list, rename, remove. */
@Injectable()
export class PasskeyEnrolmentService {
  constructor(
    private readonly passkeys: PasskeysService,
    private readonly repository: PasskeysRepository,
    private readonly users: UsersRepository,
    private readonly versions: AuthzVersions,
    private readonly audit: AuditLog,
    private readonly notices: SignInMethodNotices,
  ) {}

  async creationOptions(user: AuthUser): Promise<PublicKeyCredentialCreationOptionsJSON> {
    const profile = await this.users.findProfile(user.id);
    if (!profile) throw new AppException('UNAUTHENTICATED', 'The token is missing, invalid, expired or revoked.');
    return this.passkeys.registrationOptions(profile);
  }

  async register(user: AuthUser, dto: RegisterPasskeyDto, client: ClientInfo): Promise<PasskeyView> {
    const { name, ...response } = dto;
    const row = await this.passkeys.register(user.id, response as RegistrationResponseJSON, name, client);
    // A passkey is a second factor: what this account may reach before enrolment changes.
    await this.versions.bumpUser(user.id);
    await this.notices.tell(user.id, 'passkey-added');
    return passkeyView(row);
  }

  /** Options for a proof of presence with one of the caller's passkeys (`POST /account/reauthenticate`). */
  reauthenticationOptions(user: AuthUser): Promise<PublicKeyCredentialRequestOptionsJSON> {
    return this.passkeys.authenticationOptions('reauthentication', { userId: user.id }, 'required');
  }

  async list(user: AuthUser): Promise<{ items: PasskeyView[]; total: number }> {
    const items = (await this.passkeys.list(user.id)).map(passkeyView);
    return { items, total: items.length };
  }

  async rename(user: AuthUser, id: string, name: string, client: ClientInfo): Promise<PasskeyView> {
    const row = await this.repository.rename(user.id, id, name);
    if (!row) throw notFound();
    await this.audit.recordOnOwnAccount('passkey.rename', user.id, client, { passkey_id: id });
    return passkeyView(row);
  }

  /**
   * A passkey is a factor beside the password, so the account that holds one has two: removing it
   * takes a proof (`amr`) that held a passkey (`hwk`) or two factors (`mfa`), not the password alone.
   */
  async remove(user: AuthUser, id: string, client: ClientInfo): Promise<Record<string, never>> {
    const owned = (await this.passkeys.list(user.id)).some((passkey) => passkey.id === id);
    if (!owned) throw notFound();
    if (!proofHeldSecondFactor(user)) {
      throw new AppException(
        'REAUTHENTICATION_REQUIRED',
        'Removing a passkey needs a re-authentication with a passkey, or a sign-in with two factors.',
      );
    }
    if (!(await this.repository.delete(user.id, id))) throw notFound();
    await this.versions.bumpUser(user.id);
    await this.audit.recordOnOwnAccount('passkey.remove', user.id, client, { passkey_id: id });
    await this.notices.tell(user.id, 'passkey-removed');
    return {};
  }
}

/** Whether the session's last proof of presence (its `amr`) may remove a passkey. */
export function proofHeldSecondFactor(user: AuthUser): boolean {
  return user.amr.some((value) => PASSKEY_REMOVAL_AMR.includes(value));
}

const notFound = () => new AppException('NOT_FOUND', 'No such passkey.');
