import { Injectable } from '@nestjs/common';
import type { ClientInfo } from '../common/client-info.js';
import {
  UPSTREAM_BINDING_COOKIE,
  UPSTREAM_LINK_COOKIE,
  UpstreamSignInService,
  type UpstreamOutcome,
} from '../upstream/index.js';
import { AuthorizationService, type BrowserState, type Outcome, type Resolved } from './authorization.service.js';
import { errorPage, linkedPage } from './pages.js';

/** The browser's side of an upstream flow: its binding cookie, beside the provider's own. */
export type UpstreamBrowserState = BrowserState & { binding?: string };

/**
 * The buttons "Continue with <name>" of the sign-in page and the upstream's answer (contract,
 * "Upstream identity providers"): a sign-in at an upstream is one more way through the same
 * pages, and its result goes back to the client that asked through the authorization code flow.
 */
@Injectable()
export class UpstreamPagesService {
  constructor(
    private readonly authorization: AuthorizationService,
    private readonly upstream: UpstreamSignInService,
  ) {}

  /** A button's form: the request is checked as the sign-in form's is, then the browser goes to the upstream. */
  async start(slug: string, form: Record<string, unknown>, browser: UpstreamBrowserState): Promise<Outcome> {
    const refused = this.authorization.checkCsrf(form, browser);
    if (refused) return refused;
    const resolved = await this.authorization.resolve(form);
    if ('kind' in resolved) return resolved;
    const parameters = Object.fromEntries(
      Object.entries(resolved.parameters).filter((entry): entry is [string, string] => typeof entry[1] === 'string'),
    );
    const started = await this.upstream.startSignIn(slug, parameters, browser.binding);
    if (!started) {
      return this.authorization.signInPageOutcome(400, resolved, browser, {
        error: 'This sign-in provider is not available.',
      });
    }
    return {
      kind: 'redirect',
      location: started.url,
      cookies: [{ name: UPSTREAM_BINDING_COOKIE, value: started.binding }],
    };
  }

  /** The upstream's answer: a session and the code for the client, a second factor, a link to make, or a refusal. */
  async callback(
    slug: string,
    query: Record<string, unknown>,
    callbackUrl: URL,
    browser: UpstreamBrowserState,
    client: ClientInfo,
  ): Promise<Outcome> {
    const outcome = await this.upstream.complete(slug, query, callbackUrl, browser.binding, client);
    if (outcome.kind === 'linked') return this.authorization.page(200, linkedPage(outcome.providerName));
    const resolved = outcome.parameters === null ? null : await this.authorization.resolve(outcome.parameters);
    if (resolved === null || 'kind' in resolved) {
      return this.authorization.page(outcome.kind === 'refused' ? outcome.status : 400, errorPage(messageOf(outcome)));
    }
    switch (outcome.kind) {
      case 'signed-in':
        return this.authorization.signedIn(resolved, outcome.issued, browser, client);
      case 'challenge':
        return this.authorization.challengePage(resolved, browser, outcome.challenge);
      case 'link-required':
        return this.linkRequired(resolved, browser, outcome);
      case 'refused':
        return this.authorization.signInPageOutcome(outcome.status, resolved, browser, { error: outcome.message });
    }
  }

  /** Rule 3: an account holds the address; the person signs in to it with its own factors, and the link follows. */
  private async linkRequired(
    resolved: Resolved,
    browser: BrowserState,
    outcome: Extract<UpstreamOutcome, { kind: 'link-required' }>,
  ): Promise<Outcome> {
    const page = await this.authorization.signInPageOutcome(200, resolved, browser, {
      email: outcome.email,
      notice: `An account already uses this address. Sign in to it to link your ${outcome.providerName} identity.`,
    });
    return { ...page, cookies: [{ name: UPSTREAM_LINK_COOKIE, value: outcome.proof }] };
  }
}

function messageOf(outcome: UpstreamOutcome): string {
  if (outcome.kind === 'refused') return outcome.message;
  return 'This sign-in has expired or was already used. Go back to the application and sign in again.';
}
