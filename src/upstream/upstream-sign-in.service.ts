import { SystemRoles } from '@auth-rbac/nest-guard/internal';
import { Injectable } from '@nestjs/common';
import { createHmac, randomBytes } from 'node:crypto';
import type { EntityManager } from 'typeorm';
import { AddressProofService, SignInMethodNotices } from '../account/index.js';
import { AuditLog } from '../audit/index.js';
import type { ClientInfo } from '../common/client-info.js';
import { digestsEqual, sha256Hex } from '../common/token-hash.js';
import {
  isDisabled,
  PasswordHasher,
  UpstreamIdentitiesRepository,
  UsersRepository,
  type SignInAccount,
} from '../identity/index.js';
import { Transactions } from '../infra/database/transactions.js';
import { NewAccounts } from '../rbac/index.js';
import { TwoFactorService, type TwoFactorChallenge } from '../second-factor/index.js';
import { oneFactor, SessionService, type IssuedSession } from '../sessions/index.js';
import { ClientSecrets } from './client-secrets.js';
import { IdentityProvidersService } from './identity-providers.service.js';
import { UpstreamClient, UpstreamError, type FlowChecks, type UpstreamClaims } from './upstream-client.js';
import { UpstreamFlowsRepository, type UpstreamFlowRow } from './upstream-flows.repository.js';
import { UpstreamProvidersRepository, type UpstreamProviderRow } from './upstream-providers.repository.js';

/** A flow towards an upstream, and a link proof, live this long (seconds). */
export const UPSTREAM_FLOW_TTL_SECONDS = 600;

/** A browser's binding to its flows, and a link proof: 32 random bytes, base64url. */
const TOKEN_FORMAT = /^[A-Za-z0-9_-]{43}$/;

/** An enabled provider as the sign-in page offers it. */
export interface UpstreamButton {
  slug: string;
  name: string;
  /** Where its button's form goes on to: the page's `form-action` must allow it. */
  origin: string;
}

/** What an upstream's answer came to. `parameters` are the authorization request of the client that asked. */
export type UpstreamOutcome =
  | { kind: 'signed-in'; issued: IssuedSession; parameters: Record<string, string> }
  | { kind: 'challenge'; challenge: TwoFactorChallenge; parameters: Record<string, string> }
  | {
      kind: 'link-required';
      /** The link proof, for the browser's cookie: usable once, by a sign-in to `email`'s account. */
      proof: string;
      email: string;
      providerName: string;
      parameters: Record<string, string>;
    }
  | { kind: 'linked'; providerName: string }
  | { kind: 'refused'; status: number; message: string; parameters: Record<string, string> | null };

/** What became of a link proof after a sign-in on the pages. */
export type LinkProofResult = 'linked' | 'spent' | 'other-account' | 'unavailable' | 'taken';

/**
 * Sign-in and linking through an upstream identity provider (contract, "Upstream identity
 * providers and safe account linking"), the rules in the contract's order:
 *
 * 1. A known (provider, `sub`) signs in to its account (a disabled account: ACCOUNT_DISABLED).
 * 2. An unknown one whose address no account holds makes an account when the provider allows
 *    sign-up: no password; the address verified only when the provider is trusted for email and
 *    says `email_verified: true`.
 * 3. An unknown one whose address an account holds is never merged silently. Trusted and
 *    verified: linked at once when the account's own address is verified (the holder is told by
 *    mail), else the sign-in is the address's first proof (AddressProofService: what came before
 *    ends) and links after it. Otherwise a link proof: single use, bound to (account, provider,
 *    `sub`) and to the browser, spent by a sign-in to that account with its own factors.
 * 5. A disabled or deleted provider signs nobody in and links nothing (checked under the
 *    provider's row lock where an identity is linked).
 *
 * An upstream sign-in is one factor (`amr` `fed`): the account's second factor follows it.
 */
@Injectable()
export class UpstreamSignInService {
  constructor(
    private readonly providers: UpstreamProvidersRepository,
    private readonly flows: UpstreamFlowsRepository,
    private readonly identities: UpstreamIdentitiesRepository,
    private readonly admin: IdentityProvidersService,
    private readonly secrets: ClientSecrets,
    private readonly client: UpstreamClient,
    private readonly users: UsersRepository,
    private readonly passwords: PasswordHasher,
    private readonly newAccounts: NewAccounts,
    private readonly addressProof: AddressProofService,
    private readonly notices: SignInMethodNotices,
    private readonly twoFactor: TwoFactorService,
    private readonly sessions: SessionService,
    private readonly transactions: Transactions,
    private readonly audit: AuditLog,
  ) {}

  /** The enabled providers, for the buttons "Continue with <name>"; one whose upstream does not answer is left out. */
  async buttons(): Promise<UpstreamButton[]> {
    const rows = await this.providers.listEnabled();
    const buttons = await Promise.all(
      rows.map(async (row) => {
        try {
          return { slug: row.slug, name: row.name, origin: await this.client.authorizationOrigin(row) };
        } catch {
          return null;
        }
      }),
    );
    return buttons.filter((button): button is UpstreamButton => button !== null);
  }

  /**
   * Starts a sign-in at the provider `slug` for the authorization request `parameters`: the
   * upstream's URL, and the binding to keep in the browser's cookie (its own when it has one).
   * Null when the provider is unknown or disabled.
   */
  async startSignIn(
    slug: string,
    parameters: Record<string, string>,
    binding: string | undefined,
  ): Promise<{ url: string; binding: string } | null> {
    const provider = await this.providers.findBySlug(slug);
    if (!provider?.enabled) return null;
    return this.start(provider, 'sign_in', null, parameters, binding);
  }

  /** Starts linking the provider `slug` to the account `userId` (POST /api/account/identities/{slug}). */
  async startLink(
    userId: string,
    slug: string,
    binding: string | undefined,
  ): Promise<{ url: string; binding: string } | null> {
    const provider = await this.providers.findBySlug(slug);
    if (!provider?.enabled) return null;
    return this.start(provider, 'link', userId, {}, binding);
  }

  /** The upstream's answer at the callback of `slug`, in the browser holding `binding`. */
  async complete(
    slug: string,
    query: Record<string, unknown>,
    callbackUrl: URL,
    binding: string | undefined,
    client: ClientInfo,
  ): Promise<UpstreamOutcome> {
    const expired = (parameters: Record<string, string> | null = null): UpstreamOutcome => ({
      kind: 'refused',
      status: 400,
      message: 'This sign-in has expired or was already used. Go back to the application and sign in again.',
      parameters,
    });
    const state = typeof query.state === 'string' ? query.state : '';
    if (state.length === 0 || state.length > 200) return expired();
    // Single use: the flow's row goes with its first answer, whoever sends it.
    const flow = await this.flows.takeFlow(sha256Hex(state));
    if (!flow) return expired();
    // Bound to the browser that started it: an answer carried to another browser counts for nothing.
    if (!binding || !TOKEN_FORMAT.test(binding) || !digestsEqual(sha256Hex(binding), flow.bindingHash)) {
      await this.audit.record({ type: 'upstream.failure', client, details: { slug, reason: 'browser' } });
      return expired();
    }
    const parameters = flow.purpose === 'sign_in' ? flow.parameters : null;
    const provider = await this.providers.findById(flow.providerId);
    if (!provider || provider.slug !== slug || !provider.enabled) {
      return { kind: 'refused', status: 403, message: 'This sign-in provider is not available.', parameters };
    }
    if (typeof query.error === 'string') {
      await this.audit.record({ type: 'upstream.failure', client, details: { slug, reason: 'upstream_error' } });
      return {
        kind: 'refused',
        status: 401,
        message: `The sign-in with ${provider.name} did not complete.`,
        parameters,
      };
    }
    let claims: UpstreamClaims;
    try {
      claims = await this.client.complete(
        provider,
        this.secrets.open(provider.clientSecretSealed, provider.id),
        callbackUrl,
        this.checksFor(binding, state, slug),
      );
    } catch (error) {
      if (!(error instanceof UpstreamError)) throw error;
      await this.audit.record({ type: 'upstream.failure', client, details: { slug, reason: 'answer_refused' } });
      return {
        kind: 'refused',
        status: 401,
        message: `The sign-in with ${provider.name} could not be verified.`,
        parameters,
      };
    }
    if (flow.purpose === 'link') return this.linkFromAccount(flow, provider, claims, client);
    return this.signIn(provider, claims, flow.parameters, client);
  }

  /**
   * After a sign-in on the pages with the account's own factors: the browser's link proof, if it
   * has one, is spent, and links its identity when it was made for this account and its provider
   * still signs people in. Of parallel uses of one proof, one finds it.
   */
  async useLinkProof(proof: string | undefined, userId: string, client: ClientInfo): Promise<LinkProofResult> {
    if (!proof || !TOKEN_FORMAT.test(proof)) return 'spent';
    const result = await this.transactions.run(async (manager) => {
      const row = await this.flows.takeLinkProof(manager, sha256Hex(proof));
      if (!row) return { outcome: 'spent' as const };
      if (row.userId !== userId) return { outcome: 'other-account' as const };
      const provider = await this.providers.lockById(manager, row.providerId);
      if (!provider?.enabled) return { outcome: 'unavailable' as const };
      const linked = await this.identities.link(manager, {
        userId,
        providerId: row.providerId,
        subject: row.subject,
        email: row.email,
      });
      return linked ? { outcome: 'linked' as const, provider } : { outcome: 'taken' as const };
    });
    if (result.outcome === 'linked') {
      await this.linked(userId, result.provider, client, 'after_sign_in');
    }
    return result.outcome;
  }

  private async start(
    provider: UpstreamProviderRow,
    purpose: UpstreamFlowRow['purpose'],
    userId: string | null,
    parameters: Record<string, string>,
    existing: string | undefined,
  ): Promise<{ url: string; binding: string }> {
    const binding = existing && TOKEN_FORMAT.test(existing) ? existing : randomBytes(32).toString('base64url');
    const state = randomBytes(32).toString('base64url');
    const url = await this.client.authorizationUrl(
      provider,
      this.secrets.open(provider.clientSecretSealed, provider.id),
      this.checksFor(binding, state, provider.slug),
    );
    await this.flows.insertFlow({
      stateHash: sha256Hex(state),
      bindingHash: sha256Hex(binding),
      providerId: provider.id,
      purpose,
      userId,
      parameters,
      expiresAt: new Date(Date.now() + UPSTREAM_FLOW_TTL_SECONDS * 1000),
    });
    return { url: url.href, binding };
  }

  /**
   * The PKCE verifier and the nonce are derived from the browser's binding and the `state`, so
   * nothing of them is stored: only the browser that started the flow can finish it.
   */
  private checksFor(binding: string, state: string, slug: string): FlowChecks {
    const derive = (label: string) => createHmac('sha256', binding).update(`${label}:${state}`).digest('base64url');
    return {
      state,
      nonce: derive('nonce'),
      codeVerifier: derive('pkce'),
      redirectUri: this.admin.callbackUrl(slug),
    };
  }

  private async signIn(
    provider: UpstreamProviderRow,
    claims: UpstreamClaims,
    parameters: Record<string, string>,
    client: ClientInfo,
  ): Promise<UpstreamOutcome> {
    const refused = (status: number, message: string): UpstreamOutcome => ({
      kind: 'refused',
      status,
      message,
      parameters,
    });
    // Rule 1: a known (provider, sub) signs in to its account.
    const known = await this.identities.findBySubject(provider.id, claims.subject);
    if (known) {
      const account = await this.users.findSignInAccount(known.userId);
      if (!account) return refused(401, `The sign-in with ${provider.name} could not be verified.`);
      if (isDisabled(account)) return this.disabled(account, provider, client, parameters);
      await this.identities.touch(known.id);
      return this.finish(account, provider, client, parameters, 'upstream.sign_in');
    }
    const email = claims.email;
    if (email === null) return refused(403, `${provider.name} did not share an email address.`);
    const trusted = provider.trustEmail && claims.emailVerified;
    const holder = await this.users.findIdByEmail(email);
    if (!holder) return this.signUp(provider, { ...claims, email }, trusted, parameters, client);
    // Rule 3: an account holds the address. Never merged silently.
    let account = await this.users.findSignInAccount(holder.id);
    if (!account) return refused(401, `The sign-in with ${provider.name} could not be verified.`);
    if (!trusted) {
      const proof = randomBytes(32).toString('base64url');
      await this.flows.insertLinkProof({
        tokenHash: sha256Hex(proof),
        userId: account.id,
        providerId: provider.id,
        subject: claims.subject,
        email,
        expiresAt: new Date(Date.now() + UPSTREAM_FLOW_TTL_SECONDS * 1000),
      });
      await this.audit.record({
        type: 'upstream.link_required',
        targetType: 'user',
        targetId: account.id,
        client,
        details: { slug: provider.slug, trusted_for_email: provider.trustEmail, email_verified: claims.emailVerified },
      });
      return { kind: 'link-required', proof, email, providerName: provider.name, parameters };
    }
    if (isDisabled(account)) return this.disabled(account, provider, client, parameters);
    if (!(await this.users.isEmailVerified(account.id))) {
      // The first proof of the address ends what came before it: whoever registered it unproved may not be its holder.
      const proof = await this.addressProof.proveAddress(account.id, email, client);
      if (proof === 'mismatch') return refused(409, 'The account changed meanwhile. Sign in again.');
      account = await this.users.findSignInAccount(account.id);
      if (!account) return refused(401, `The sign-in with ${provider.name} could not be verified.`);
    }
    const linked = await this.linkIdentity(account.id, provider, claims);
    if (linked !== 'linked') return refused(409, `This ${provider.name} identity is linked to another account.`);
    await this.linked(account.id, provider, client, 'automatic');
    return this.finish(account, provider, client, parameters, 'upstream.sign_in');
  }

  /** Rule 2: a new account, without a password; its address verified only on a trusted provider's word. */
  private async signUp(
    provider: UpstreamProviderRow,
    claims: UpstreamClaims & { email: string },
    trusted: boolean,
    parameters: Record<string, string>,
    client: ClientInfo,
  ): Promise<UpstreamOutcome> {
    if (!provider.allowSignUp) {
      return {
        kind: 'refused',
        status: 403,
        message: `No account uses this address, and signing up with ${provider.name} is off.`,
        parameters,
      };
    }
    const passwordHash = await this.passwords.unusableHash();
    let account: SignInAccount | null;
    try {
      account = await this.transactions.run(async (manager) => {
        if (!(await this.enabledUnderLock(manager, provider.id))) return null;
        const created = await this.newAccounts.create(
          manager,
          {
            name: nameOf(claims),
            email: claims.email,
            mobile: null,
            passwordHash,
            emailVerified: trusted,
            passwordSet: false,
          },
          SystemRoles.User,
        );
        await this.identities.link(manager, {
          userId: created.id,
          providerId: provider.id,
          subject: claims.subject,
          email: claims.email,
        });
        return created;
      });
    } catch (error) {
      // Another sign-in took the address or the identity meanwhile: this one starts again.
      if (!isUniqueViolation(error)) throw error;
      return {
        kind: 'refused',
        status: 409,
        message: 'The account changed meanwhile. Sign in again.',
        parameters,
      };
    }
    if (!account) {
      return { kind: 'refused', status: 403, message: 'This sign-in provider is not available.', parameters };
    }
    await this.audit.recordOnOwnAccount('upstream.sign_up', account.id, client, {
      slug: provider.slug,
      email_verified: trusted,
    });
    return this.finish(account, provider, client, parameters, 'upstream.sign_in');
  }

  /** Rule 4: the identity the person signed in with at the upstream joins the account that started the link. */
  private async linkFromAccount(
    flow: UpstreamFlowRow,
    provider: UpstreamProviderRow,
    claims: UpstreamClaims,
    client: ClientInfo,
  ): Promise<UpstreamOutcome> {
    const userId = flow.userId!;
    const existing = await this.identities.findBySubject(provider.id, claims.subject);
    if (existing && existing.userId === userId) return { kind: 'linked', providerName: provider.name };
    const result = existing ? 'taken' : await this.linkIdentity(userId, provider, claims);
    if (result === 'unavailable') {
      return { kind: 'refused', status: 403, message: 'This sign-in provider is not available.', parameters: null };
    }
    if (result === 'taken') {
      await this.audit.record({
        type: 'upstream.failure',
        actorId: userId,
        client,
        details: { slug: provider.slug, reason: 'taken' },
      });
      return {
        kind: 'refused',
        status: 409,
        message: `This ${provider.name} identity is linked to another account.`,
        parameters: null,
      };
    }
    await this.linked(userId, provider, client, 'from_account');
    return { kind: 'linked', providerName: provider.name };
  }

  /** Links under the provider's row lock, so a parallel disabling either waits for it or refuses it. */
  private async linkIdentity(
    userId: string,
    provider: UpstreamProviderRow,
    claims: UpstreamClaims,
  ): Promise<'linked' | 'taken' | 'unavailable'> {
    return this.transactions.run(async (manager) => {
      if (!(await this.enabledUnderLock(manager, provider.id))) return 'unavailable';
      const row = await this.identities.link(manager, {
        userId,
        providerId: provider.id,
        subject: claims.subject,
        email: claims.email,
      });
      return row ? 'linked' : 'taken';
    });
  }

  private async enabledUnderLock(manager: EntityManager, providerId: string): Promise<boolean> {
    const row = await this.providers.lockById(manager, providerId);
    return row?.enabled === true;
  }

  /** After a link: the holder is told by mail, and the trail says how. */
  private async linked(
    userId: string,
    provider: UpstreamProviderRow,
    client: ClientInfo,
    how: 'automatic' | 'after_sign_in' | 'from_account',
  ): Promise<void> {
    await this.audit.recordOnOwnAccount('upstream.link', userId, client, { slug: provider.slug, how });
    await this.notices.tell(userId, 'identity-linked');
  }

  private async disabled(
    account: SignInAccount,
    provider: UpstreamProviderRow,
    client: ClientInfo,
    parameters: Record<string, string>,
  ): Promise<UpstreamOutcome> {
    await this.audit.record({
      type: 'login.disabled',
      actorId: account.id,
      client,
      details: { method: 'upstream', slug: provider.slug },
    });
    return { kind: 'refused', status: 403, message: 'This account is disabled.', parameters };
  }

  /** One factor (`fed`): the account's second factor, as after a password, before any token. */
  private async finish(
    account: SignInAccount,
    provider: UpstreamProviderRow,
    client: ClientInfo,
    parameters: Record<string, string>,
    event: 'upstream.sign_in',
  ): Promise<UpstreamOutcome> {
    const requirement = await this.twoFactor.requirementFor(account, 'fed');
    if (requirement.kind === 'challenge') {
      const challenge = await this.twoFactor.challenge(account, client, requirement.methods, 'fed');
      await this.audit.record({
        type: '2fa.challenge',
        actorId: account.id,
        client,
        details: { login: 'upstream', slug: provider.slug, methods: requirement.methods },
      });
      return { kind: 'challenge', challenge, parameters };
    }
    const issued = await this.sessions.startWithResponse(account, client, oneFactor('fed'), {
      event: { type: event, actorId: account.id, details: { slug: provider.slug } },
    });
    return { kind: 'signed-in', issued, parameters };
  }
}

/** The upstream's name for the person, else the address's local part: a name the account rules accept. */
function nameOf(claims: UpstreamClaims & { email: string }): string {
  // eslint-disable-next-line no-control-regex
  const cleaned = (claims.name ?? '').replace(/[\u0000-\u001f\u007f\u202a-\u202e\u2066-\u2069]/g, '').trim();
  return (cleaned.length > 0 ? cleaned : claims.email.split('@')[0]).slice(0, 255);
}

function isUniqueViolation(error: unknown): boolean {
  return typeof error === 'object' && error !== null && (error as { code?: unknown }).code === '23505';
}
