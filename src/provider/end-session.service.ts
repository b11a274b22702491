import { Injectable } from '@nestjs/common';
import { createLocalJWKSet, jwtVerify } from 'jose';
import { matchesRegisteredUri } from '../clients/index.js';
import { digestsEqual, sha256Hex } from '../common/token-hash.js';
import { AppConfig } from '../config/app-config.js';
import { SessionService, isUuid } from '../sessions/index.js';
import { redirectWith } from './authorization-request.js';
import type { BrowserState, Outcome } from './authorization.service.js';
import { IdTokenKeys } from './id-token-keys.js';
import { errorPage, pageCsp, signedOutPage, signOutPage } from './pages.js';
import { ProviderRepository } from './provider.repository.js';
import { RelyingParties } from './relying-parties.js';

/** The end of the sign-in at the provider, and a signal to forget the browser's cookie. */
export type EndSessionOutcome = Outcome & { signedOut?: true };

const text = (value: unknown): string | undefined =>
  typeof value === 'string' && value !== '' && value.length <= 4000 ? value : undefined;

/**
 * RP-Initiated Logout 1.0: with an `id_token_hint` of this issuer, the sign-in it names ends (and
 * with it every client's session under it) and the browser goes to a registered
 * `post_logout_redirect_uri` with `state`; an unregistered URI gets a page, never a redirect;
 * without a hint, a page asks the person to press **Sign out** (a form with the CSRF token, so
 * another site cannot sign them out).
 */
@Injectable()
export class EndSessionService {
  constructor(
    private readonly keys: IdTokenKeys,
    private readonly clients: RelyingParties,
    private readonly repository: ProviderRepository,
    private readonly sessions: SessionService,
    private readonly config: AppConfig,
  ) {}

  async endSession(source: unknown, browser: BrowserState): Promise<EndSessionOutcome> {
    const input = (typeof source === 'object' && source !== null ? source : {}) as Record<string, unknown>;
    const hint = text(input.id_token_hint);
    const redirectUri = text(input.post_logout_redirect_uri);
    const state = text(input.state);
    if (!hint) {
      if (redirectUri) return this.page(400, errorPage('post_logout_redirect_uri needs an id_token_hint.'));
      return this.page(200, signOutPage({ csrf: browser.csrf }));
    }
    const claims = await this.verifyHint(hint);
    if (!claims) return this.page(400, errorPage('The id_token_hint was not issued here.'));
    if (redirectUri) {
      const client = await this.clients.find(claims.clientId);
      if (!client || !matchesRegisteredUri(client.postLogoutRedirectUris, redirectUri)) {
        return this.page(400, errorPage('The post-logout redirect URI is not registered for this application.'));
      }
    }
    await this.sessions.revoke(claims.sessionId, 'logout');
    if (!redirectUri) return { ...this.page(200, signedOutPage()), signedOut: true };
    return { kind: 'redirect', location: redirectWith(redirectUri, { state }), signedOut: true };
  }

  /** The **Sign out** button: ends the browser's own sign-in. */
  async signOut(form: Record<string, unknown>, browser: BrowserState): Promise<EndSessionOutcome> {
    const posted = typeof form.csrf === 'string' ? form.csrf : '';
    if (!(posted.length > 0 && digestsEqual(sha256Hex(posted), sha256Hex(browser.csrf)))) {
      return this.page(400, errorPage('This form has expired. Sign out again.'));
    }
    if (browser.sso && browser.sso.length <= 100) {
      const session = await this.repository.findLiveBrowserSession(sha256Hex(browser.sso));
      if (session) await this.sessions.revoke(session.sessionId, 'logout');
    }
    return { ...this.page(200, signedOutPage()), signedOut: true };
  }

  /** The client and browser sign-in an ID token of this issuer names; an expired one still names them. */
  private async verifyHint(hint: string): Promise<{ clientId: string; sessionId: string } | null> {
    try {
      const { payload } = await jwtVerify(hint, createLocalJWKSet({ keys: await this.keys.publicKeys() }), {
        issuer: this.config.http.issuer,
        algorithms: ['RS256'],
        // A hint names the sign-in to end; it grants nothing, so an expired one is still a hint.
        currentDate: new Date(0),
      });
      const clientId = typeof payload.aud === 'string' ? payload.aud : undefined;
      if (!clientId || typeof payload.sid !== 'string' || !isUuid(payload.sid)) return null;
      return { clientId, sessionId: payload.sid };
    } catch {
      return null;
    }
  }

  private page(status: number, html: string): EndSessionOutcome {
    return { kind: 'page', status, html, csp: pageCsp() };
  }
}
