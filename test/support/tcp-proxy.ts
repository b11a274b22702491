import net from 'node:net';

/**
 * A loopback TCP proxy in front of a database, so a test can take the database away from the
 * service (`cut`: every connection dropped, new ones refused) and give it back on the same
 * port (`restore`) without touching the database itself.
 */
export class TcpProxy {
  private server: net.Server | null = null;
  private readonly sockets = new Set<net.Socket>();
  private readonly chunkWaiters: { count: number; resolve: () => void }[] = [];
  private port = 0;

  private constructor(
    private readonly targetHost: string,
    private readonly targetPort: number,
  ) {}

  /** Listens on 127.0.0.1 on a free port and forwards every connection to the target. */
  static async start(targetHost: string, targetPort: number): Promise<TcpProxy> {
    const proxy = new TcpProxy(targetHost, targetPort);
    await proxy.listen();
    return proxy;
  }

  /** `url` with its host and port replaced by the proxy's. */
  rewrite(url: string): string {
    const proxied = new URL(url);
    proxied.hostname = '127.0.0.1';
    proxied.port = String(this.port);
    return proxied.toString();
  }

  /**
   * Resolves once `count` more chunks have gone from the service to the database, i.e. while
   * queries are on their way: cutting then catches them mid-flight. Gives up after `timeoutMs`.
   */
  queriesInFlight(count: number, timeoutMs: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(resolve, timeoutMs);
      this.chunkWaiters.push({
        count,
        resolve: () => {
          clearTimeout(timer);
          resolve();
        },
      });
    });
  }

  /** Drops every open connection and stops accepting: clients see resets, then refusals. */
  async cut(): Promise<void> {
    const server = this.server;
    this.server = null;
    for (const socket of this.sockets) socket.destroy();
    this.sockets.clear();
    if (server) await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  /** Accepts again on the same port. */
  async restore(): Promise<void> {
    if (!this.server) await this.listen();
  }

  async stop(): Promise<void> {
    await this.cut();
  }

  private async listen(): Promise<void> {
    const server = net.createServer((client) => {
      const upstream = net.connect(this.targetPort, this.targetHost);
      for (const socket of [client, upstream]) {
        this.sockets.add(socket);
        socket.on('close', () => this.sockets.delete(socket));
        socket.on('error', () => undefined);
      }
      client.on('close', () => upstream.destroy());
      upstream.on('close', () => client.destroy());
      client.on('data', () => {
        for (const waiter of this.chunkWaiters.splice(0)) {
          if (--waiter.count <= 0) waiter.resolve();
          else this.chunkWaiters.push(waiter);
        }
      });
      client.pipe(upstream);
      upstream.pipe(client);
    });
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(this.port, '127.0.0.1', () => {
        server.off('error', reject);
        resolve();
      });
    });
    this.port = (server.address() as net.AddressInfo).port;
    this.server = server;
  }
}
