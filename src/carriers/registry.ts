import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { AppContext } from '../context.js';
import type { CarrierDispatch, CarrierDriver, Channel, OutboundMessage, Route } from '../messaging/ports.js';
import { matchRoute } from './routing.js';
import { Pacer } from './pacer.js';
import { databaseCoordination } from './coordination-store.js';
import { CarrierManager } from './manager.js';
import { RouterDriver } from './router.js';
import { carrierMetrics } from './metrics.js';
import { recordRejection } from './providers/store.js';
import type { CarrierInbox } from './adapter.js';

export type { Route };

declare module '../messaging/ports.js' {
  /** The context's carriers are this registry (built by src/app/boot.ts); ports.ts names only what messaging uses. */
  interface ProcessCarriers extends CarrierRegistry {}
}

/**
 * Which driver carries each channel: the router (routes and connectors from
 * the database, the simulator among them; see router.ts), unless a driver
 * was put in front of a channel with use() (tests, or a provider driver).
 */
export class CarrierRegistry implements CarrierDispatch {
  readonly manager: CarrierManager;
  private readonly router: Route;
  private readonly routes = new Map<Channel, Route>();
  /**
   * Messages this process is handing over right now. A second dispatcher in
   * the process never submits them too, even if their claim ran out while the
   * process stalled (src/messaging/dispatch.ts).
   */
  readonly inFlight = new Set<number>();

  /** `inbox` keeps what connectors receive (messaging/carrier-sink.ts); refused provider requests are counted here. */
  constructor(ctx: AppContext, inbox: CarrierInbox) {
    const { db, log, secrets, config } = ctx;
    this.manager = new CarrierManager({
      db,
      log,
      secrets,
      config,
      coordination: databaseCoordination(db),
      sinkFor: (ids) => ({
        ...inbox.sink(ids),
        rejected: (r) => recordRejection(ctx, r.carrier, r.reason, r.remoteAddress),
      }),
      applyWaiting: (ids, carrier) => inbox.applyWaiting(ids, carrier),
      pruneReceived: () => inbox.prune(),
    });
    carrierMetrics(ctx.metrics, this.manager);
    const driver = new RouterDriver(this.manager);
    this.router = { driver, pacer: new Pacer(driver.messagesPerSecond) };
  }

  /** Puts a driver in front of its channels (a real carrier, or a test's driver), with its own pace. */
  use(driver: CarrierDriver): void {
    const route = { driver, pacer: new Pacer(driver.messagesPerSecond) };
    for (const channel of driver.channels) this.routes.set(channel, route);
  }

  boundHere(): string[] {
    return this.manager.boundHere();
  }

  route(channel: Channel): Route | undefined {
    return this.routes.get(channel) ?? this.router;
  }

  /**
   * Every connector a message not handed over yet may go to, as this process
   * sees it now: the driver put in front of its channel, else its chat-app
   * instance, else all the connectors of its route (failover included); [] when
   * no route covers it.
   */
  connectorsFor(m: Pick<OutboundMessage, 'channel' | 'number' | 'meta' | 'accountId'>): string[] {
    const front = this.routes.get(m.channel);
    if (front) return [front.driver.name];
    const instance = this.manager.instanceFor(m);
    if (instance) return [instance];
    return matchRoute(this.manager.routes, m.channel, m.number, m.accountId)?.carriers ?? [];
  }

  /** Binds the configured connectors and keeps following the configuration (a running service only). */
  start(): void {
    this.manager.start();
  }

  /** The process stops: messages waiting in the connectors' lines are left to other processes (see Connector). */
  refuseWaiting(): void {
    this.manager.refuseWaiting();
  }

  async close(): Promise<void> {
    await this.manager.stop();
  }

  /** The channels each driver carries now (a driver replaced on every channel is gone). */
  drivers(): Map<string, Channel[]> {
    const byName = new Map<string, Channel[]>();
    for (const [channel, { driver }] of this.routes)
      byName.set(driver.name, [...(byName.get(driver.name) ?? []), channel]);
    return byName;
  }
}

/**
 * CARRIER_MODULE: an ES module whose default export takes the AppContext and
 * returns one driver or several; each goes in front of its channels (after
 * the simulator, so it wins). How an operator plugs in a carrier the project
 * does not ship, and how the crash tests put a recording carrier in
 * `mensajero serve`.
 */
export async function loadCarrierModule(ctx: AppContext, path: string): Promise<void> {
  const mod = await import(pathToFileURL(resolve(path)).href);
  if (typeof mod.default !== 'function') throw new Error(`CARRIER_MODULE ${path} has no default export function`);
  const made: CarrierDriver | CarrierDriver[] = await mod.default(ctx);
  for (const driver of Array.isArray(made) ? made : [made]) ctx.carriers.use(driver);
}
