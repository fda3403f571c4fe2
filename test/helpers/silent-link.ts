import { createConnection, createServer, type Server, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';

/**
 * A TCP forwarder to `target` that can fall silent: while cut, it drops every
 * byte in both directions and keeps the sockets open, as a failed switch or a
 * cloud network does (no reset, no FIN: the peers cannot tell it from a slow
 * one). Healing forwards again what comes next; what was dropped stays lost,
 * as on a real network whose TCP segments were never acknowledged — so a
 * connection that carried traffic during the cut is usually broken after it.
 */
export class SilentLink {
  private server: Server | null = null;
  private readonly pairs = new Set<[Socket, Socket]>();
  /** The local port of every connection this link opened to `target`: how the target tells what came through it. */
  readonly carried = new Set<number>();
  cut = false;

  /** Pairs one side of which closed while cut: the other side learns it at the heal. */
  private readonly held = new Set<[Socket, Socket]>();

  /**
   * `holdCloses`: while cut, a side that closes is not seen closing by the
   * other until the heal (a FIN is a packet too, dropped like the others), as
   * an SMSC does not learn that a cut-off client closed its session.
   */
  constructor(
    private readonly target: { host: string; port: number },
    private readonly options: { holdCloses?: boolean } = {},
  ) {}

  async start(): Promise<this> {
    this.server = createServer((client) => {
      const upstream = createConnection(this.target, () => this.carried.add(upstream.localPort!));
      const pair: [Socket, Socket] = [client, upstream];
      this.pairs.add(pair);
      const forward = (from: Socket, to: Socket) =>
        from.on('data', (chunk) => {
          if (!this.cut) to.write(chunk);
        });
      forward(client, upstream);
      forward(upstream, client);
      const end = (closed: Socket) => {
        if (this.cut && this.options.holdCloses) {
          closed.destroy();
          this.held.add(pair);
          return;
        }
        this.pairs.delete(pair);
        client.destroy();
        upstream.destroy();
      };
      for (const side of pair) side.on('close', () => end(side)).on('error', () => end(side));
    });
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    return this;
  }

  /** A started link to the PostgreSQL server of `url` (port 5432 when the URL names none). */
  static toPostgres(url: string): Promise<SilentLink> {
    const u = new URL(url);
    return new SilentLink({ host: u.hostname, port: Number(u.port || 5432) }).start();
  }

  get port(): number {
    return (this.server!.address() as AddressInfo).port;
  }

  /** A connection URL like `url`, through this link. */
  through(url: string): string {
    const u = new URL(url);
    u.host = `127.0.0.1:${this.port}`;
    return u.toString();
  }

  /** New connections are still accepted while cut (the SYN gets through), but nothing they send arrives. */
  silence(): void {
    this.cut = true;
  }

  heal(): void {
    this.cut = false;
    for (const pair of this.held) {
      this.pairs.delete(pair);
      for (const side of pair) side.destroy();
    }
    this.held.clear();
  }

  async stop(): Promise<void> {
    for (const [a, b] of this.pairs) {
      a.destroy();
      b.destroy();
    }
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }
}
