import { createServer, createConnection, type Server, type Socket } from 'node:net';

/**
 * A TCP proxy on a random loopback port in front of `target` (host:port), for
 * tests that need a connection to fail at an exact moment: `cutNextReply()`
 * lets the next request through to the server and drops its answer (the
 * connection is destroyed instead), and refuses new connections until
 * `restore()`. So the server did the work and the client never learns it.
 * `cutReplyTo(marker)` does it for the one request that carries `marker` (a
 * role's connection carries other traffic too).
 */
export class TcpProxy {
  private server!: Server;
  private readonly pairs = new Set<[Socket, Socket]>();
  private cutting = false;
  private refusing = false;
  private refuseAfterCut = true;
  private marker: Buffer | null = null;
  /** Answers swallowed by a cut. */
  cuts = 0;
  port = 0;

  constructor(private readonly target: { host: string; port: number }) {}

  static async start(target: { host: string; port: number }): Promise<TcpProxy> {
    const p = new TcpProxy(target);
    await p.listen();
    return p;
  }

  get url(): string {
    return `redis://127.0.0.1:${this.port}`;
  }

  /**
   * The next answer from the server is dropped with its connection; with
   * `refuse` (default), new connections are refused until restore().
   */
  cutNextReply(options: { refuse?: boolean } = {}): void {
    this.cutting = true;
    this.refuseAfterCut = options.refuse ?? true;
  }

  /**
   * The next request whose bytes contain `marker` reaches the server whole;
   * then the client's connection is destroyed, the server's is half-closed
   * after the request (the server reads and runs it; its answer goes
   * nowhere), and with `refuse` (default) new connections are refused until
   * restore().
   */
  cutReplyTo(marker: string, options: { refuse?: boolean } = {}): void {
    this.marker = Buffer.from(marker, 'utf8');
    this.refuseAfterCut = options.refuse ?? true;
  }

  /** Connections are accepted again. */
  restore(): void {
    this.cutting = false;
    this.marker = null;
    this.refusing = false;
  }

  async close(): Promise<void> {
    for (const [a, b] of this.pairs) {
      a.destroy();
      b.destroy();
    }
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private listen(): Promise<void> {
    this.server = createServer((client) => {
      if (this.refusing) return void client.destroy();
      const upstream = createConnection(this.target);
      const pair: [Socket, Socket] = [client, upstream];
      this.pairs.add(pair);
      /** Set by cutReplyTo's request: the server's answers are dropped; its side closes after the request. */
      let severed = false;
      const drop = () => {
        client.destroy();
        if (severed && !upstream.destroyed) upstream.end();
        else upstream.destroy();
        this.pairs.delete(pair);
      };
      client.on('data', (chunk: Buffer) => {
        if (severed) return;
        upstream.write(chunk);
        if (this.marker && chunk.includes(this.marker)) {
          this.marker = null;
          severed = true;
          this.refusing = this.refuseAfterCut;
          this.cuts += 1;
          // A FIN after the request (never a reset): the server reads and runs all of it first.
          drop();
        }
      });
      upstream.on('data', (chunk) => {
        if (severed) return;
        if (this.cutting) {
          this.cutting = false;
          this.refusing = this.refuseAfterCut;
          this.cuts += 1;
          return drop();
        }
        client.write(chunk);
      });
      client.on('error', drop).on('close', drop);
      upstream.on('error', drop).on('close', drop);
    });
    return new Promise((resolve) => {
      this.server.listen(0, '127.0.0.1', () => {
        this.port = (this.server.address() as { port: number }).port;
        resolve();
      });
    });
  }
}
