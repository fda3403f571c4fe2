import type { AppContext } from '../context.js';
import type { Channel } from '../messaging/types.js';
import { Pacer, type CarrierDriver } from './driver.js';
import { SimulatorDriver } from './simulator/driver.js';

export interface Route {
  driver: CarrierDriver;
  pacer: Pacer;
}

/**
 * Which driver carries each channel. With SIMULATORS on (the default) the
 * simulator carries everything; real drivers (SMPP, HTTP providers) plug in here.
 */
export class CarrierRegistry {
  private readonly routes = new Map<Channel, Route>();

  constructor(ctx: AppContext) {
    if (ctx.config.SIMULATORS) {
      this.use(new SimulatorDriver(ctx, ctx.config.SIMULATOR_MESSAGES_PER_SECOND));
    }
  }

  /** Puts a driver in front of its channels (a real carrier, or a test's driver), with its own pace. */
  use(driver: CarrierDriver): void {
    const route = { driver, pacer: new Pacer(driver.messagesPerSecond) };
    for (const channel of driver.channels) this.routes.set(channel, route);
  }

  route(channel: Channel): Route | undefined {
    return this.routes.get(channel);
  }

  /** The channels each driver carries now (a driver replaced on every channel is gone). */
  drivers(): Map<string, Channel[]> {
    const byName = new Map<string, Channel[]>();
    for (const [channel, { driver }] of this.routes) byName.set(driver.name, [...(byName.get(driver.name) ?? []), channel]);
    return byName;
  }
}
