import type { AppContext } from '../../context.js';
import type { Connector } from '../adapter.js';
import { Pacer, type OutboundMessage, type SubmitOutcome } from '../driver.js';
import { emptyStats } from '../status.js';
import { SIMULATOR } from '../store.js';
import { SimulatorDriver } from './driver.js';

/** The built-in simulator as a connector: available while SIMULATORS is on and the operator has not disabled it. */
export class SimulatorConnector implements Connector {
  readonly name = SIMULATOR;
  readonly version = 0;
  readonly stats = emptyStats();
  enabled = true;
  private readonly driver: SimulatorDriver;
  private readonly pacer: Pacer;

  constructor(private readonly ctx: AppContext) {
    this.driver = new SimulatorDriver(ctx, ctx.config.SIMULATOR_MESSAGES_PER_SECOND);
    this.pacer = new Pacer(ctx.config.SIMULATOR_MESSAGES_PER_SECOND);
  }

  get available(): boolean {
    return this.ctx.config.SIMULATORS && this.enabled;
  }

  get state(): 'bound' | 'connecting' {
    return 'bound';
  }

  async close(): Promise<void> {}

  async submit(batch: OutboundMessage[]): Promise<SubmitOutcome[]> {
    for (let i = 0; i < batch.length; i += this.driver.maxBatch)
      await this.pacer.take(Math.min(this.driver.maxBatch, batch.length - i));
    const outcomes: SubmitOutcome[] = [];
    for (let i = 0; i < batch.length; i += this.driver.maxBatch)
      outcomes.push(...(await this.driver.submit(batch.slice(i, i + this.driver.maxBatch))));
    for (const o of outcomes)
      if (o.ok) this.stats.submitted++;
      else this.stats.refused++;
    return outcomes;
  }
}
