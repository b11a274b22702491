import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { createHash, randomBytes } from 'node:crypto';
import request, { type Response } from 'supertest';
import { setCookies } from '../support/auth-factory.js';

/** A PKCE pair (RFC 7636): a verifier and its S256 challenge. */
export function pkce(): { verifier: string; challenge: string } {
  const verifier = randomBytes(32).toString('base64url');
  return { verifier, challenge: createHash('sha256').update(verifier).digest('base64url') };
}

/** `&#NN;` references back to their characters, as a browser reads an attribute. */
export function unescapeHtml(value: string): string {
  return value
    .replace(/&#(\d+);/g, (_match, code: string) => String.fromCharCode(Number(code)))
    .replace(/&quot;/g, '"')
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&amp;/g, '&');
}

/** The named fields of the page's (first or given) form: hidden ones with their values. */
export function formFields(html: string, action?: string): { action: string; fields: Record<string, string> } {
  const forms = [...html.matchAll(/<form method="post" action="([^"]+)">([\s\S]*?)<\/form>/g)];
  const form = action ? forms.find((match) => match[1].endsWith(action)) : forms[0];
  if (!form) throw new Error(`no form${action ? ` posting to ${action}` : ''} in the page:\n${html}`);
  const fields: Record<string, string> = {};
  for (const input of form[2].matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)">/g)) {
    fields[unescapeHtml(input[1])] = unescapeHtml(input[2]);
  }
  return { action: unescapeHtml(form[1]), fields };
}

/**
 * A browser with a cookie jar for the provider's paths, driving it with plain HTTP requests, to an
 * app in the test's process or to a service's address.
 */
export class ProviderBrowser {
  constructor(
    private readonly target: NestFastifyApplication | string,
    readonly cookies = new Map<string, string>(),
  ) {}

  /** The same browser (its cookies) sending its next requests to another instance behind the same name. */
  on(target: NestFastifyApplication | string): ProviderBrowser {
    return new ProviderBrowser(target, this.cookies);
  }

  private server() {
    return typeof this.target === 'string' ? this.target : this.target.getHttpServer();
  }

  private jar(): string {
    return [...this.cookies].map(([name, value]) => `${name}=${value}`).join('; ');
  }

  private keep(res: Response): Response {
    for (const cookie of Object.values(setCookies(res))) this.cookies.set(cookie.name, cookie.value);
    return res;
  }

  authorize(query: Record<string, string | undefined>): Promise<Response> {
    return this.get('/api/auth/authorize', query);
  }

  async get(path: string, query: Record<string, string | undefined>): Promise<Response> {
    const defined = Object.fromEntries(Object.entries(query).filter(([, value]) => value !== undefined)) as Record<
      string,
      string
    >;
    const req = request(this.server()).get(`${path}?${new URLSearchParams(defined)}`);
    if (this.cookies.size > 0) req.set('cookie', this.jar());
    return this.keep(await req.redirects(0));
  }

  async post(path: string, form: Record<string, string>): Promise<Response> {
    const req = request(this.server()).post(path).type('form');
    if (this.cookies.size > 0) req.set('cookie', this.jar());
    return this.keep(await req.send(new URLSearchParams(form).toString()));
  }

  /** Fills the sign-in page's form and sends it. */
  async signIn(page: Response, email: string, password: string): Promise<Response> {
    const { action, fields } = formFields(page.text, '/login');
    return this.post(action, { ...fields, email, password });
  }

  /** Presses a button of the consent page. */
  async decide(page: Response, decision: 'allow' | 'deny'): Promise<Response> {
    const { action, fields } = formFields(page.text, '/consent');
    return this.post(action, { ...fields, decision });
  }
}

/** The parameters of a redirect's Location. */
export function redirectParameters(res: Response): URLSearchParams {
  const location = res.headers.location as string | undefined;
  if (!location) throw new Error(`no redirect: ${res.status} ${res.text}`);
  return new URL(location).searchParams;
}
