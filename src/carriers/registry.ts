import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
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
  /**
   * Messages this process is handing over right now. A second dispatcher in
   * the process never submits them too, even if their claim ran out while the
   * process stalled (src/messaging/dispatch.ts).
   */
  readonly inFlight = new Set<number>();

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
