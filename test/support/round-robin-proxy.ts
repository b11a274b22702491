import http from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A small HTTP load balancer for tests: each request goes to the next backend in turn, with
 * X-Forwarded-For set to the client's address (as one trusted proxy hop, TRUST_PROXY=1), and
 * the answer says which backend served it in `x-served-by` (its index).
 */
export class RoundRobinProxy {
  private next = 0;

  private constructor(
    private readonly server: http.Server,
    private readonly backends: URL[],
  ) {}

  static async start(backends: string[]): Promise<RoundRobinProxy> {
    const server = http.createServer();
    const proxy = new RoundRobinProxy(
      server,
      backends.map((backend) => new URL(backend)),
    );
    server.on('request', (request, response) => proxy.forward(request, response));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return proxy;
  }

  /** The backend the next request goes to. */
  get upcoming(): number {
    return this.next;
  }

  get url(): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  async stop(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private forward(request: http.IncomingMessage, response: http.ServerResponse): void {
    const index = this.next;
    this.next = (this.next + 1) % this.backends.length;
    const backend = this.backends[index]!;
    const upstream = http.request(
      {
        host: backend.hostname,
        port: backend.port,
        method: request.method,
        path: request.url,
        headers: { ...request.headers, host: backend.host, 'x-forwarded-for': request.socket.remoteAddress ?? '' },
      },
      (answer) => {
        response.writeHead(answer.statusCode ?? 502, { ...answer.headers, 'x-served-by': String(index) });
        answer.pipe(response);
      },
    );
    upstream.on('error', () => {
      response.writeHead(502).end();
    });
    request.pipe(upstream);
  }
}
