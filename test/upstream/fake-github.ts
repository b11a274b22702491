import { createHash, randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';

/** One address of GitHub's `GET /user/emails`. */
export interface GitHubEmail {
  email: string;
  primary: boolean;
  verified: boolean;
}

/** Who is signed in at the fake GitHub: its `/user` and `/user/emails`. */
export interface GitHubPerson {
  id: number;
  login: string;
  name: string | null;
  emails: GitHubEmail[];
}

interface Grant {
  person: GitHubPerson;
  clientId: string;
  redirectUri: string;
  challenge: string;
}

/**
 * GitHub as an OAuth 2 server on a loopback port, laid out as a GitHub Enterprise Server is (the
 * provider's `issuer` is this base URL): `/login/oauth/authorize` signs the scripted person in at
 * once and sends the browser back with a code; `/login/oauth/access_token` checks the client's
 * id and secret (form), the redirect URI and PKCE S256 before it gives an access token, once per
 * code; `/api/v3/user` and `/api/v3/user/emails` answer for that token only.
 */
export class FakeGitHub {
  private server!: Server;
  private readonly codes = new Map<string, Grant>();
  private readonly tokens = new Map<string, GitHubPerson>();
  /** The person the next sign-in is. */
  person: GitHubPerson = { id: 0, login: 'nobody', name: null, emails: [] };
  /** What the service asked: method and path, in order. */
  readonly calls: string[] = [];

  constructor(private readonly client: { id: string; secret: string }) {}

  async start(): Promise<this> {
    this.server = createServer((req, res) => {
      void this.answer(req, res).catch(() => res.writeHead(500).end());
    });
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    return this;
  }

  get url(): string {
    const { port } = this.server.address() as { port: number };
    return `http://127.0.0.1:${port}`;
  }

  async stop(): Promise<void> {
    await new Promise((resolve) => this.server.close(resolve));
  }

  private async answer(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', this.url);
    this.calls.push(`${req.method} ${url.pathname}`);
    const json = (status: number, body: unknown): void =>
      void res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));

    if (req.method === 'GET' && url.pathname === '/login/oauth/authorize') {
      const query = url.searchParams;
      if (query.get('client_id') !== this.client.id || query.get('code_challenge_method') !== 'S256') {
        return void res.writeHead(400).end('bad authorization request');
      }
      const code = randomBytes(16).toString('hex');
      this.codes.set(code, {
        person: structuredClone(this.person),
        clientId: query.get('client_id')!,
        redirectUri: query.get('redirect_uri')!,
        challenge: query.get('code_challenge')!,
      });
      const back = new URL(query.get('redirect_uri')!);
      back.searchParams.set('code', code);
      back.searchParams.set('state', query.get('state') ?? '');
      return void res.writeHead(302, { location: back.toString() }).end();
    }

    if (req.method === 'POST' && url.pathname === '/login/oauth/access_token') {
      const form = new URLSearchParams(await bodyOf(req));
      const grant = this.codes.get(form.get('code') ?? '');
      this.codes.delete(form.get('code') ?? '');
      const verifier = form.get('code_verifier') ?? '';
      if (
        !grant ||
        form.get('grant_type') !== 'authorization_code' ||
        form.get('client_id') !== this.client.id ||
        form.get('client_secret') !== this.client.secret ||
        form.get('redirect_uri') !== grant.redirectUri ||
        createHash('sha256').update(verifier).digest('base64url') !== grant.challenge
      ) {
        return json(200, { error: 'bad_verification_code' });
      }
      const token = `gho_${randomBytes(18).toString('hex')}`;
      this.tokens.set(token, grant.person);
      return json(200, { access_token: token, token_type: 'bearer', scope: 'read:user,user:email' });
    }

    const person = this.tokens.get((req.headers.authorization ?? '').replace(/^Bearer /, ''));
    if (req.method === 'GET' && url.pathname === '/api/v3/user') {
      if (!person) return json(401, { message: 'Bad credentials' });
      return json(200, { id: person.id, login: person.login, name: person.name });
    }
    if (req.method === 'GET' && url.pathname === '/api/v3/user/emails') {
      if (!person) return json(401, { message: 'Bad credentials' });
      return json(
        200,
        person.emails.map((entry) => ({ ...entry, visibility: entry.primary ? 'private' : null })),
      );
    }
    res.writeHead(404).end();
  }
}

function bodyOf(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}
