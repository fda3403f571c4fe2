import { CHANNELS } from '../../channels.js';
import type { CarrierSink, ScheduledReport } from '../adapter.js';
import { fencedOut, type CarrierDriver, type OutboundMessage, type SubmitOutcome } from '../../messaging/ports.js';

/** National part of a full number: its last 10 digits. */
const national = (full: string) => full.slice(-10);

/**
 * The delivery status the simulated carrier reports (docs/api/sms.md, "Simulator"): NN for
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
 * the refusal path (docs/api/sms.md, "Simulator"): 10-digit numbers starting
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
  readonly channels = CHANNELS;
  readonly maxBatch = 1000;

  constructor(
    /** Where its delivery reports are scheduled (a durable job: see messaging/carrier-sink.ts). */
    private readonly sink: Pick<CarrierSink, 'scheduleReports'>,
    private readonly dlrDelayMs: number,
    readonly messagesPerSecond: number,
  ) {}

  async submit(batch: OutboundMessage[]): Promise<SubmitOutcome[]> {
    const outcomes: SubmitOutcome[] = [];
    const reports: ScheduledReport[] = [];
    for (const m of batch) {
      const fenced = fencedOut(m);
      if (fenced) outcomes.push(fenced);
      else if (simulatedRefusal(m.number))
        outcomes.push({ ok: false, permanent: true, error: 'simulated carrier refused the number' });
      else {
        outcomes.push({ ok: true, carrier: this.name }); // also behind a driver that hands it on: the simulator carried it
        reports.push({ messageId: m.id, code: simulatedStatus(m.number) });
      }
    }
    if (reports.length > 0) await this.sink.scheduleReports(reports, Date.now() + this.dlrDelayMs);
    return outcomes;
  }
}
