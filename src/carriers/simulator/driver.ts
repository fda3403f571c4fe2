import type { AppContext } from '../../context.js';
import { enqueue } from '../../jobs/queue.js';
import type { CarrierDriver, OutboundMessage, SubmitOutcome } from '../driver.js';

export const SIMULATOR_DLR_JOB = 'simulator.dlr';

/** National part of a full number: its last 10 digits. */
const national = (full: string) => full.slice(-10);

/**
 * The delivery status the simulated carrier reports (CONTRACT.md): NN for
 * 10-digit numbers 55500000NN with NN from 00 to 12, 0 (delivered) for
 * every other number.
 */
export function simulatedStatus(fullNumber: string): number {
  const m = /^55500000(\d\d)$/.exec(national(fullNumber));
  const nn = m ? Number(m[1]) : 0;
  return nn <= 12 ? nn : 0;
}

/**
 * Numbers the simulated carrier refuses outright at submission, to exercise
 * the refusal path (an addition to CONTRACT.md): 10-digit numbers starting
 * with 5559999.
 */
export const simulatedRefusal = (fullNumber: string): boolean => national(fullNumber).startsWith('5559999');

/**
 * The built-in carrier for every channel. It accepts each message and, after
 * SIMULATOR_DLR_DELAY_MS, reports its status through a durable job, so a
 * restart between submission and report loses nothing.
 */
export class SimulatorDriver implements CarrierDriver {
  readonly name = 'simulator';
  readonly channels = ['sms', 'rcs', 'chatapp', 'voice'] as const;
  readonly maxBatch = 1000;

  constructor(
    private readonly ctx: AppContext,
    readonly messagesPerSecond: number,
  ) {}

  async submit(batch: OutboundMessage[]): Promise<SubmitOutcome[]> {
    const outcomes: SubmitOutcome[] = [];
    const reports: Array<[number, number]> = [];
    for (const m of batch) {
      if (simulatedRefusal(m.number))
        outcomes.push({ ok: false, permanent: true, error: 'simulated carrier refused the number' });
      else {
        outcomes.push({ ok: true });
        reports.push([m.id, simulatedStatus(m.number)]);
      }
    }
    if (reports.length > 0) {
      await enqueue(
        this.ctx.db.kysely,
        SIMULATOR_DLR_JOB,
        { reports },
        { runAt: Date.now() + this.ctx.config.SIMULATOR_DLR_DELAY_MS, maxAttempts: 20 },
      );
    }
    return outcomes;
  }
}
