import type { Config } from '../../config.js';
import type { CarrierSink, Connector } from '../adapter.js';
import { Pacer } from '../pacer.js';
import { type OutboundMessage, type SubmitOutcome } from '../../messaging/ports.js';
import { emptyStats } from '../status.js';
import { SIMULATOR } from '../store.js';
import { SimulatorDriver } from './driver.js';

/** What the simulator reads of the configuration. */
export type SimulatorConfig = Pick<Config, 'SIMULATORS' | 'SIMULATOR_MESSAGES_PER_SECOND' | 'SIMULATOR_DLR_DELAY_MS'>;

/** The built-in simulator as a connector: available while SIMULATORS is on and the operator has not disabled it. */
export class SimulatorConnector implements Connector {
  readonly name = SIMULATOR;
  readonly version = 0;
  readonly stats = emptyStats();
  enabled = true;
  readonly driver: SimulatorDriver;
  private readonly pacer: Pacer;

  constructor(
    private readonly config: SimulatorConfig,
    sink: Pick<CarrierSink, 'scheduleReports'>,
  ) {
    const perSecond = config.SIMULATOR_MESSAGES_PER_SECOND;
    this.driver = new SimulatorDriver(sink, config.SIMULATOR_DLR_DELAY_MS, perSecond);
    this.pacer = new Pacer(perSecond);
  }

  get available(): boolean {
    return this.config.SIMULATORS && this.enabled;
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
