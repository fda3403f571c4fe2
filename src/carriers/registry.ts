import type { AppContext } from '../context.js';
import type { Channel } from '../messaging/types.js';
import { Pacer, type CarrierDriver } from './driver.js';
import { CarrierManager } from './manager.js';
import { RouterDriver } from './router.js';
import { carrierMetrics } from './metrics.js';

export interface Route {
  driver: CarrierDriver;
  pacer: Pacer;
}

/**
 * Which driver carries each channel: the router (routes and connectors from
 * the database, the simulator among them; see router.ts), unless a driver
 * was put in front of a channel with use() (tests, or a provider driver).
 */
export class CarrierRegistry {
  readonly manager: CarrierManager;
  private readonly router: Route;
  private readonly routes = new Map<Channel, Route>();

  constructor(ctx: AppContext) {
    this.manager = new CarrierManager(ctx);
    carrierMetrics(ctx.metrics, this.manager);
    const driver = new RouterDriver(this.manager);
    this.router = { driver, pacer: new Pacer(driver.messagesPerSecond) };
  }

  /** Puts a driver in front of its channels (a real carrier, or a test's driver), with its own pace. */
  use(driver: CarrierDriver): void {
    const route = { driver, pacer: new Pacer(driver.messagesPerSecond) };
    for (const channel of driver.channels) this.routes.set(channel, route);
  }

  route(channel: Channel): Route | undefined {
    return this.routes.get(channel) ?? this.router;
  }

  /** Binds the configured connectors and keeps following the configuration (a running service only). */
  start(): void {
    this.manager.start();
  }

  async close(): Promise<void> {
    await this.manager.stop();
  }

  /** The channels each driver carries now (a driver replaced on every channel is gone). */
  drivers(): Map<string, Channel[]> {
    const byName = new Map<string, Channel[]>();
    for (const [channel, { driver }] of this.routes) byName.set(driver.name, [...(byName.get(driver.name) ?? []), channel]);
    return byName;
  }
}
