import { Injectable } from '@nestjs/common';
import { plainToInstance } from 'class-transformer';
import { validate } from 'class-validator';
import { createHmac, randomBytes } from 'node:crypto';
import { AuditLog } from '../audit/index.js';
import type { AuthenticationResponseJSON } from '@simplewebauthn/server';
import { AppException } from '../common/app-exception.js';
import { AuthenticationResponseDto } from '../common/webauthn-json.dto.js';
import type { ClientInfo } from '../common/client-info.js';
import { digestsEqual, sha256Hex } from '../common/token-hash.js';
import { AppConfig } from '../config/app-config.js';
import { TwoFactorService, type TwoFactorChallenge } from '../second-factor/index.js';
import type { IssuedSession } from '../sessions/index.js';
import { AuthService, LoginDto } from '../sign-in/index.js';
import { UPSTREAM_LINK_COOKIE, UpstreamSignInService } from '../upstream/index.js';
import {
  AuthorizationPageError,
  AuthorizationRedirectError,
  judgeAuthorizationRequest,
  parametersOf,
  redirectWith,
  type AuthorizationParameters,
  type AuthorizationRequest,
} from './authorization-request.js';
import { consentPage, errorPage, pageCsp, secondFactorPage, signInPage } from './pages.js';
import { ProviderRepository, type BrowserSessionRow } from './provider.repository.js';
import { RelyingParties } from './relying-parties.js';

/** An authorization code lives at most this long (the contract: 60 s). */
export const CODE_TTL_SECONDS = 60;

/** What the browser is answered: a redirect, or a page with its status and policy. */
export type Outcome = (
  | { kind: 'redirect'; location: string; signedIn?: string }
  | { kind: 'page'; status: number; html: string; csp: string; signedIn?: string }
) & {
  /** Cookies of an upstream flow to set (or clear, with `null`) with the answer. */
  cookies?: { name: string; value: string | null }[];
};

/** The cookies the provider reads: its single sign-on session and the forms' CSRF token. */
export interface BrowserState {
  sso: string | undefined;
  csrf: string;
  /** A link proof from an upstream sign-in, spent by the next sign-in on these pages. */
  linkProof?: string;
}

export type Resolved = { parameters: AuthorizationParameters; request: AuthorizationRequest };

/**
 * The authorization endpoint and its pages (OpenID Connect Core §3.1.2, RFC 6749 §4.1, RFC 7636,
 * RFC 9207): judges the request, signs the person in through the service's own sign-in (the same
 * password, second-factor, lockout and account rules as the API), asks consent where needed, and
 * answers with a code bound to everything the request said.
 */
@Injectable()
export class AuthorizationService {
  constructor(
    private readonly clients: RelyingParties,
    private readonly repository: ProviderRepository,
    private readonly auth: AuthService,
    private readonly twoFactor: TwoFactorService,
    private readonly audit: AuditLog,
    private readonly config: AppConfig,
    private readonly upstream: UpstreamSignInService,
  ) {}

  /** GET or POST of the authorization endpoint. */
  async authorize(source: unknown, browser: BrowserState): Promise<Outcome> {
    const resolved = await this.resolve(source);
    if ('kind' in resolved) return resolved;
    const session = await this.browserSession(browser.sso);
    return this.proceed(resolved, session, browser, { fresh: false, consented: false });
  }

  /** The sign-in page's form: email (or mobile) and password, through the API's own sign-in. */
  async signIn(form: Record<string, unknown>, browser: BrowserState, client: ClientInfo): Promise<Outcome> {
    const refused = this.checkCsrf(form, browser);
    if (refused) return refused;
    const resolved = await this.resolve(form);
    if ('kind' in resolved) return resolved;
    const email = typeof form.email === 'string' ? form.email : '';
    const password = typeof form.password === 'string' ? form.password : '';
    const showAgain = (error: AppException): Promise<Outcome> =>
      this.signInPageOutcome(error.getStatus(), resolved, browser, { error: error.message, email });
    const dto = plainToInstance(LoginDto, email.includes('@') ? { email, password } : { mobile: email, password });
    if ((await validate(dto, { whitelist: true, forbidNonWhitelisted: true })).length > 0) {
      return showAgain(new AppException('INVALID_CREDENTIALS', 'Invalid credentials.'));
    }
    let outcome: IssuedSession | { challenge: TwoFactorChallenge };
    try {
      outcome = await this.auth.login(dto, client);
    } catch (error) {
      if (error instanceof AppException) return showAgain(error);
      throw error;
    }
    if ('challenge' in outcome) return this.challengePage(resolved, browser, outcome.challenge);
    return this.signedIn(resolved, outcome, browser, client);
  }

  /**
   * The second-factor page's forms: a code of the challenge (app, SMS, or a recovery code), or the
   * answer of a passkey ("Use a passkey"), judged as the API's `verify-2fa` judges them.
   */
  async verify(form: Record<string, unknown>, browser: BrowserState, client: ClientInfo): Promise<Outcome> {
    const refused = this.checkCsrf(form, browser);
    if (refused) return refused;
    const resolved = await this.resolve(form);
    if ('kind' in resolved) return resolved;
    const tempToken = typeof form.temp_token === 'string' ? form.temp_token : '';
    const code = typeof form.code === 'string' ? form.code.trim() : '';
    let session: IssuedSession;
    try {
      const assertion = typeof form.assertion === 'string' && form.assertion !== '' ? form.assertion : undefined;
      session =
        assertion !== undefined
          ? await this.twoFactor.verify(tempToken, { assertion: await passkeyAnswer(assertion) }, client, 'passkey')
          : // After "Text me a code" the code is the SMS one; otherwise digits are the app's (or the
            // SMS code of an SMS-only challenge) and anything else can only be a recovery code.
            await this.twoFactor.verify(tempToken, { code }, client, codeMethod(code, form.method === 'sms'));
    } catch (error) {
      if (!(error instanceof AppException)) throw error;
      return this.page(
        error.getStatus(),
        secondFactorPage({
          clientName: resolved.request.client.name,
          parameters: resolved.parameters,
          csrf: browser.csrf,
          tempToken,
          hint: 'Enter the code of your second factor.',
          error: error.message,
        }),
        resolved.request.redirectUri,
      );
    }
    return this.signedIn(resolved, session, browser, client);
  }

  /** The consent page's form: Allow (remembered for this person and client) or Deny. */
  async consent(form: Record<string, unknown>, browser: BrowserState): Promise<Outcome> {
    const refused = this.checkCsrf(form, browser);
    if (refused) return refused;
    const resolved = await this.resolve(form);
    if ('kind' in resolved) return resolved;
    const session = await this.browserSession(browser.sso);
    if (!session) return this.proceed(resolved, null, browser, { fresh: false, consented: false });
    const { request } = resolved;
    if (form.decision !== 'allow') {
      return this.errorRedirect(request, 'access_denied', 'The person declined the request.');
    }
    const remembered = (await this.repository.findConsent(session.userId, request.client.clientId)) ?? '';
    const scopes = new Set([...remembered.split(' ').filter(Boolean), ...request.scopes]);
    await this.repository.upsertConsent(session.userId, request.client.clientId, [...scopes].join(' '));
    await this.audit.record({
      type: 'provider.consent',
      actorId: session.userId,
      targetType: 'client',
      targetId: request.client.clientId,
      details: { scope: request.scopes.join(' ') },
    });
    const fresh = typeof form.fresh === 'string' && browser.sso !== undefined && form.fresh === freshMark(browser.sso);
    return this.proceed(resolved, session, browser, { fresh, consented: true });
  }

  /** The request's client, redirect URI and parameters, or the answer that refuses it. */
  async resolve(source: unknown): Promise<Resolved | Outcome> {
    const { parameters, problem } = parametersOf(source);
    const client = parameters.client_id ? await this.clients.find(parameters.client_id) : null;
    const matches = Boolean(
      client && parameters.redirect_uri && this.clients.matchesRedirectUri(client, parameters.redirect_uri),
    );
    try {
      return { parameters, request: judgeAuthorizationRequest(parameters, problem, client, matches) };
    } catch (error) {
      if (error instanceof AuthorizationPageError) return this.page(400, errorPage(error.description));
      if (error instanceof AuthorizationRedirectError && client && parameters.redirect_uri) {
        return {
          kind: 'redirect',
          location: redirectWith(parameters.redirect_uri, {
            error: error.error,
            error_description: error.description,
            state: parameters.state,
            iss: this.config.http.issuer,
          }),
        };
      }
      throw error;
    }
  }

  /**
   * After a sign-in on the pages: the browser's single sign-on cookie, then the request goes on.
   * A link proof the browser holds (an upstream identity waiting for this account) is spent now.
   */
  async signedIn(
    resolved: Resolved,
    issued: IssuedSession,
    browser: BrowserState,
    client: ClientInfo,
  ): Promise<Outcome> {
    const sso = randomBytes(32).toString('base64url');
    await this.repository.insertBrowserSession(sha256Hex(sso), issued.tokens.sessionId);
    const session = await this.repository.findLiveBrowserSession(sha256Hex(sso));
    let spent: Outcome['cookies'];
    if (browser.linkProof !== undefined) {
      await this.upstream.useLinkProof(browser.linkProof, issued.response.user.id, client);
      spent = [{ name: UPSTREAM_LINK_COOKIE, value: null }];
    }
    const outcome = await this.proceed(resolved, session, { ...browser, sso }, { fresh: true, consented: false });
    return { ...outcome, signedIn: sso, cookies: spent };
  }

  /** The sign-in page, with a button "Continue with <name>" per enabled upstream provider. */
  async signInPageOutcome(
    status: number,
    { parameters, request }: Resolved,
    browser: BrowserState,
    extra: { error?: string; email?: string; notice?: string },
  ): Promise<Outcome> {
    const upstreams = await this.upstream.buttons();
    return {
      kind: 'page',
      status,
      html: signInPage({ clientName: request.client.name, parameters, csrf: browser.csrf, upstreams, ...extra }),
      csp: pageCsp(
        request.redirectUri,
        upstreams.map((upstream) => upstream.origin),
      ),
    };
  }

  /**
   * The button "Text me a code": the API's `send-2fa` for this challenge (its limits and lockout),
   * then the Code form again, now answered as the SMS code.
   */
  async sendSms(form: Record<string, unknown>, browser: BrowserState): Promise<Outcome> {
    const refused = this.checkCsrf(form, browser);
    if (refused) return refused;
    const resolved = await this.resolve(form);
    if ('kind' in resolved) return resolved;
    const tempToken = typeof form.temp_token === 'string' ? form.temp_token : '';
    const page = (status: number, text: { hint: string; error?: string }, sent: boolean) =>
      this.page(
        status,
        secondFactorPage({
          clientName: resolved.request.client.name,
          parameters: resolved.parameters,
          csrf: browser.csrf,
          tempToken,
          smsOnRequest: true,
          smsSent: sent,
          ...text,
        }),
        resolved.request.redirectUri,
      );
    try {
      const sent = await this.twoFactor.sendSms(tempToken);
      return page(200, { hint: `Enter the code sent to ${sent.mobile_masked}.` }, true);
    } catch (error) {
      if (!(error instanceof AppException)) throw error;
      // A code texted before this refusal is still the one the Code form answers.
      const sentBefore = form.method === 'sms';
      return page(
        error.getStatus(),
        { hint: 'Enter the code of your second factor.', error: error.message },
        sentBefore,
      );
    }
  }

  /** The second-factor page of a challenge that followed a first factor. */
  challengePage({ parameters, request }: Resolved, browser: BrowserState, challenge: TwoFactorChallenge): Outcome {
    return this.page(
      200,
      secondFactorPage({
        clientName: request.client.name,
        parameters,
        csrf: browser.csrf,
        tempToken: challenge.temp_token,
        hint: challengeHint(challenge),
        passkeyOptions: challenge.passkey_options,
        smsOnRequest: offersSmsOnRequest(challenge),
      }),
      request.redirectUri,
      { scripts: challenge.passkey_options !== undefined },
    );
  }

  private async proceed(
    { parameters, request }: Resolved,
    session: BrowserSessionRow | null,
    browser: BrowserState,
    step: { fresh: boolean; consented: boolean },
  ): Promise<Outcome> {
    const signInAgain = () =>
      this.signInPageOutcome(200, { parameters, request }, browser, { email: request.loginHint });
    if (!session) {
      if (request.prompt.none) return this.errorRedirect(request, 'login_required', 'No one is signed in.');
      return signInAgain();
    }
    if (!step.fresh) {
      const age = (Date.now() - new Date(session.authTime).getTime()) / 1000;
      const tooOld = request.maxAge !== undefined && age > request.maxAge;
      if (request.prompt.none && tooOld)
        return this.errorRedirect(request, 'login_required', 'The sign-in is older than max_age.');
      if (request.prompt.login || tooOld) return signInAgain();
    }
    if (!request.client.firstParty && !step.consented) {
      const remembered = (await this.repository.findConsent(session.userId, request.client.clientId)) ?? '';
      const allowed = new Set(remembered.split(' '));
      const needed = request.prompt.consent || request.scopes.some((scope) => !allowed.has(scope));
      if (needed) {
        if (request.prompt.none)
          return this.errorRedirect(request, 'consent_required', 'The person has not allowed this application.');
        const fresh: Record<string, string> = step.fresh && browser.sso ? { fresh: freshMark(browser.sso) } : {};
        return this.page(
          200,
          consentPage({
            clientName: request.client.name,
            scopes: request.scopes,
            parameters,
            csrf: browser.csrf,
            extra: fresh,
          }),
          request.redirectUri,
        );
      }
    }
    return this.issueCode(request, session);
  }

  private async issueCode(request: AuthorizationRequest, session: BrowserSessionRow): Promise<Outcome> {
    const code = randomBytes(32).toString('base64url');
    await this.repository.insertCode({
      codeHash: sha256Hex(code),
      clientId: request.client.clientId,
      redirectUri: request.redirectUri,
      codeChallenge: request.codeChallenge,
      nonce: request.nonce ?? null,
      scope: request.scopes.join(' '),
      resource: request.resource ?? null,
      sessionId: session.sessionId,
      userId: session.userId,
      expiresAt: new Date(Date.now() + CODE_TTL_SECONDS * 1000),
    });
    return {
      kind: 'redirect',
      location: redirectWith(request.redirectUri, { code, state: request.state, iss: this.config.http.issuer }),
    };
  }

  private errorRedirect(request: AuthorizationRequest, error: string, description: string): Outcome {
    return {
      kind: 'redirect',
      location: redirectWith(request.redirectUri, {
        error,
        error_description: description,
        state: request.state,
        iss: this.config.http.issuer,
      }),
    };
  }

  private browserSession(sso: string | undefined): Promise<BrowserSessionRow | null> {
    if (!sso || sso.length > 100) return Promise.resolve(null);
    return this.repository.findLiveBrowserSession(sha256Hex(sso));
  }

  /** A form of these pages must carry the CSRF cookie's value (a cross-site post carries no cookie). */
  checkCsrf(form: Record<string, unknown>, browser: BrowserState): Outcome | null {
    const posted = typeof form.csrf === 'string' ? form.csrf : '';
    if (posted.length > 0 && digestsEqual(sha256Hex(posted), sha256Hex(browser.csrf))) return null;
    return this.page(400, errorPage('This form has expired. Go back to the application and sign in again.'));
  }

  page(status: number, html: string, redirectUri?: string, csp: { scripts?: boolean } = {}): Outcome {
    return { kind: 'page', status, html, csp: pageCsp(redirectUri, [], csp) };
  }
}

/**
 * The passkey's answer as the page posted it (JSON of SimpleWebAuthn's browser library), held to
 * the API's own shape; anything else is the wrong answer the API would give (INVALID_OTP).
 */
async function passkeyAnswer(posted: string): Promise<AuthenticationResponseJSON> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(posted);
  } catch {
    parsed = null;
  }
  const dto = plainToInstance(AuthenticationResponseDto, typeof parsed === 'object' && parsed !== null ? parsed : {});
  if ((await validate(dto, { whitelist: true, forbidNonWhitelisted: true })).length > 0) {
    throw new AppException('INVALID_OTP', 'The code is wrong.');
  }
  return dto as unknown as AuthenticationResponseJSON;
}

/** Proof, carried through the consent page, that the sign-in just happened (prompt=login, max_age). */
function freshMark(sso: string): string {
  return createHmac('sha256', sso).update('fresh sign-in').digest('base64url');
}

/** Which method a typed code answers: the SMS code once one was texted on request, else by its form. */
function codeMethod(code: string, smsRequested: boolean): 'sms' | 'recovery' | undefined {
  if (smsRequested) return 'sms';
  return /^\d+$/.test(code) ? undefined : 'recovery';
}

/** An SMS code is offered beside an app or a passkey, texted only when asked for (`send-2fa`). */
function offersSmsOnRequest(challenge: TwoFactorChallenge): boolean {
  const methods = challenge.methods ?? [];
  return methods.includes('sms') && (methods.includes('totp') || methods.includes('passkey'));
}

function challengeHint(challenge: TwoFactorChallenge): string {
  const methods = challenge.methods ?? ['sms'];
  if (methods.includes('totp')) return 'Enter the code of your authenticator app, or a recovery code.';
  if (challenge.mobile_masked) return `Enter the code sent to ${challenge.mobile_masked}.`;
  return 'Enter the code of your second factor.';
}
