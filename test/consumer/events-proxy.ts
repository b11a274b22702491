import {
  request as httpRequest,
  createServer,
  type IncomingMessage,
  type Server,
  type ServerResponse,
} from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * Between a consumer and the auth service: forwards every request as a stream, and can cut the
 * event streams (`GET /api/auth/events`) alone, refuse new ones while cut, and write forged
 * messages into the open ones, as a broken or hostile network would.
 */
export class EventsProxy {
  private server!: Server;
  private readonly streams = new Set<ServerResponse>();
  /** While true, event streams are refused (503) and the open ones were cut. */
  blocked = false;
  /** Event stream requests seen, with their Last-Event-ID. */
  readonly connections: (string | undefined)[] = [];

  constructor(private readonly target: string) {}

  async start(): Promise<string> {
    this.server = createServer((req, res) => this.forward(req, res));
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  cut(): void {
    this.blocked = true;
    for (const stream of this.streams) stream.destroy();
    this.streams.clear();
  }

  restore(): void {
    this.blocked = false;
  }

  /** Writes raw SSE text into every open event stream. */
  inject(text: string): number {
    for (const stream of this.streams) stream.write(text);
    return this.streams.size;
  }

  get openStreams(): number {
    return this.streams.size;
  }

  private forward(req: IncomingMessage, res: ServerResponse): void {
    const isEvents = req.url?.startsWith('/api/auth/events') ?? false;
    if (isEvents) {
      this.connections.push(req.headers['last-event-id'] as string | undefined);
      if (this.blocked) {
        res.writeHead(503).end();
        return;
      }
    }
    const target = new URL(this.target);
    const upstream = httpRequest(
      { hostname: target.hostname, port: target.port, path: req.url, method: req.method, headers: req.headers },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        if (isEvents) {
          this.streams.add(res);
          res.once('close', () => {
            this.streams.delete(res);
            answer.destroy();
          });
        }
        answer.pipe(res);
      },
    );
    upstream.on('error', () => (res.headersSent ? res.destroy() : res.writeHead(502).end()));
    req.pipe(upstream);
  }

  stop(): Promise<void> {
    for (const stream of this.streams) stream.destroy();
    this.server.closeAllConnections();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}
