import { readFileSync } from 'node:fs';
import { hostname } from 'node:os';
import net, { type AddressInfo, type Server, type Socket } from 'node:net';
import tls from 'node:tls';
import ipaddr from 'ipaddr.js';
import type { AppContext } from '../context.js';
import { activeAccount } from '../features/smpp-users/bind.js';
import { releaseBind, renewBind } from '../features/smpp-users/service.js';
import { pruneUnanswered } from '../features/smpp-users/resubmits.js';
import { pruneThroughputSlots } from '../features/smpp-users/throughput.js';
import { randomToken } from '../lib/ids.js';
import { SmppServerMetrics } from './metrics.js';
import { DeliveryPump } from './deliveries.js';
import { CustomerSession, type SessionHost, type SessionOptions } from './session.js';

export interface SmppServerOptions extends Partial<SessionOptions> {
  /** Connections open at once from one address; more are closed at once (a flood does not starve others). */
  maxConnectionsPerAddress?: number;
  /** How often binds are renewed and checked (kicked, removed, account archived). */
  renewMs?: number;
  /** How often waiting receipts and replies are looked for. */
  deliverMs?: number;
  /** Every this many renewals, the throughput counters older than their sliding second are deleted. */
  pruneEvery?: number;
}

const DEFAULTS = {
  enquireLinkMs: 30_000,
  inactivityMs: 90_000,
  maxInFlight: 200,
  outputPauseBytes: 64 * 1024,
  outputLimitBytes: 1024 * 1024,
  maxConnectionsPerAddress: 32,
  renewMs: 1000,
  deliverMs: 250,
  pruneEvery: 30,
};

/** IPv4 addresses in dotted form (an IPv4-mapped IPv6 address is shown as its IPv4 one). */
function addressOf(socket: Socket): string {
  try {
    return ipaddr.process(socket.remoteAddress ?? '').toString();
  } catch {
    return socket.remoteAddress ?? '';
  }
}

/**
 * Customers bind here over SMPP 3.4 (SMPP_SERVER_PORT, and TLS on
 * SMPP_SERVER_TLS_PORT). Every second the process renews the binds it
 * holds; a bind whose row was deleted (kick, remove) or whose account is no
 * longer active is closed.
 */
export class SmppServer implements SessionHost {
  readonly holder = `${hostname()}:${process.pid}:${randomToken(6)}`;
  readonly sessions = new Set<CustomerSession>();
  readonly metrics: SmppServerMetrics;
  readonly options: SessionOptions;
  private readonly servers: Server[] = [];
  private readonly perAddress = new Map<string, number>();
  private readonly settings: typeof DEFAULTS & SessionOptions;
  private timer: NodeJS.Timeout | null = null;
  private deliverTimer: NodeJS.Timeout | null = null;
  readonly pump: DeliveryPump;
  private renewing: Promise<void> | null = null;
  private renewals = 0;
  private readonly releasing = new Set<Promise<void>>();

  constructor(
    readonly ctx: AppContext,
    options: SmppServerOptions = {},
  ) {
    this.settings = {
      ...DEFAULTS,
      bindTimeoutMs: ctx.config.SMPP_SERVER_BIND_TIMEOUT_SECONDS * 1000,
      readTimeoutMs: ctx.config.SMPP_SERVER_READ_TIMEOUT_SECONDS * 1000,
      ...options,
    };
    this.options = this.settings;
    this.metrics = new SmppServerMetrics(ctx.metrics.registry, ctx.db, ctx.metrics.beforeScrape);
    this.pump = new DeliveryPump({
      db: ctx.db,
      log: ctx.log,
      holder: this.holder,
      ttlHours: ctx.config.SMPP_SERVER_DELIVERY_TTL_HOURS,
      metrics: this.metrics,
      receivers: () => [...this.sessions].filter((s) => s.room > 0),
    });
  }

  /** Listens on the configured ports; resolves with the bound ones (port 0: the system picks). */
  async listen(): Promise<{ port?: number; tlsPort?: number }> {
    const { config } = this.ctx;
    const ports: { port?: number; tlsPort?: number } = {};
    if (config.SMPP_SERVER_PORT !== undefined)
      ports.port = await this.start(net.createServer(), config.SMPP_SERVER_PORT, 'connection');
    if (config.SMPP_SERVER_TLS_PORT !== undefined) {
      const server = tls.createServer({
        cert: readFileSync(config.SMPP_SERVER_TLS_CERT!),
        key: readFileSync(config.SMPP_SERVER_TLS_KEY!),
      });
      ports.tlsPort = await this.start(server, config.SMPP_SERVER_TLS_PORT, 'secureConnection');
    }
    this.timer = setInterval(() => void this.renew(), this.settings.renewMs);
    this.timer.unref();
    this.deliverTimer = setInterval(
      () => void this.pump.tick().catch((err) => this.ctx.log.warn({ err }, 'SMPP delivery round failed')),
      this.settings.deliverMs,
    );
    this.deliverTimer.unref();
    return ports;
  }

  private start(server: Server, port: number, event: string): Promise<number> {
    server.on(event, (socket: Socket) => this.accept(socket));
    server.on('error', (err) => this.ctx.log.error({ err }, 'SMPP listener error'));
    this.servers.push(server);
    return new Promise((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, this.ctx.config.SMPP_SERVER_HOST, () => resolve((server.address() as AddressInfo).port));
    });
  }

  private accept(socket: Socket): void {
    const address = addressOf(socket);
    const open = this.perAddress.get(address) ?? 0;
    if (open >= this.settings.maxConnectionsPerAddress) return void socket.destroy();
    this.perAddress.set(address, open + 1);
    socket.setNoDelay(true);
    this.sessions.add(new CustomerSession(socket, address, this));
  }

  ended(session: CustomerSession): void {
    if (!this.sessions.delete(session)) return;
    const left = (this.perAddress.get(session.address) ?? 1) - 1;
    if (left <= 0) this.perAddress.delete(session.address);
    else this.perAddress.set(session.address, left);
    const bound = session.bound;
    if (!bound) return;
    const release = releaseBind(this.ctx.db.kysely, this.holder, bound.user.id, bound.slot)
      .catch((err) => this.ctx.log.warn({ err }, 'SMPP bind release failed: its lease expires'))
      .finally(() => this.releasing.delete(release));
    this.releasing.add(release);
  }

  /** Renews every bind of this process; closes the ones it lost and those of accounts no longer active. */
  renew(): Promise<void> {
    this.renewing ??= this.renewOnce().finally(() => (this.renewing = null));
    return this.renewing;
  }

  /** Throughput slots past their sliding second, unanswered submits past the resubmission window. */
  private async prune(): Promise<void> {
    const db = this.ctx.db.kysely;
    const window = this.ctx.config.SMPP_SERVER_RESUBMIT_WINDOW_SECONDS * 1000;
    await Promise.all([pruneThroughputSlots(db), pruneUnanswered(db, Date.now() - window)]).catch((err) =>
      this.ctx.log.warn({ err }, 'SMPP prune failed'),
    );
  }

  private async renewOnce(): Promise<void> {
    const db = this.ctx.db;
    if (this.renewals++ % this.settings.pruneEvery === 0) await this.prune();
    const active = new Map<number, boolean>();
    // Counted first and set at once after the round: a scrape during the round still sees every bind.
    const open = new Map<string, { labels: { system_id: string; bind: string }; n: number }>();
    const count = (bound: NonNullable<CustomerSession['bound']>) => {
      const key = `${bound.user.system_id} ${bound.mode}`;
      const entry = open.get(key) ?? { labels: { system_id: bound.user.system_id, bind: bound.mode }, n: 0 };
      open.set(key, { ...entry, n: entry.n + 1 });
    };
    for (const session of [...this.sessions]) {
      const bound = session.bound;
      if (!bound) continue;
      const counts = session.counts;
      session.counts = { submitted: 0, delivered: 0 };
      const accountId = Number(bound.user.account_id);
      try {
        if (!active.has(accountId)) active.set(accountId, (await activeAccount(db, accountId)) !== undefined);
        const held = await renewBind(db.kysely, this.holder, { userId: bound.user.id, slot: bound.slot, ...counts });
        if (!held || !active.get(accountId)) {
          await releaseBind(db.kysely, this.holder, bound.user.id, bound.slot);
          void session.unbind();
          continue;
        }
        count(bound);
      } catch (err) {
        count(bound);
        this.ctx.log.warn({ err }, 'SMPP bind renewal failed: retried at the next tick');
      }
    }
    this.metrics.bound.reset();
    for (const { labels, n } of open.values()) this.metrics.bound.set(labels, n);
  }

  async close(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    if (this.deliverTimer) clearInterval(this.deliverTimer);
    // A server's close waits for its connections: they are unbound first.
    const stopped = Promise.all(this.servers.map((s) => new Promise((r) => s.close(r))));
    await Promise.all([...this.sessions].map((s) => s.unbind()));
    await this.renewing;
    await this.pump.tick().catch(() => undefined);
    await this.pump.settled();
    for (const session of [...this.sessions]) {
      session.socket.destroy();
      this.ended(session);
    }
    await Promise.all([...this.releasing]);
    await stopped;
  }
}
