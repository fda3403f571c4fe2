import { Pacer } from '../pacer.js';
import { fencedOut, type OutboundMessage, type SubmitOutcome } from '../../messaging/ports.js';
import type { CarrierSink, Connector } from '../adapter.js';
import { emptyStats, type ConnectorStats } from '../status.js';

/** Requests in flight at once per connector in this process. */
const PARALLEL = 8;

/**
 * A connector that speaks a provider's HTTP API: one request per message,
 * paced at the connector's messages per second, at most PARALLEL at once.
 * Each accepted message's provider id is recorded before submit() returns,
 * so the provider's webhooks can find it. Network errors and 5xx/429 are
 * transient: the dispatcher retries them (the message was charged once, at
 * submission, and stays charged once).
 */
export abstract class HttpProviderConnector implements Connector {
  readonly stats: ConnectorStats = emptyStats();
  readonly available = true;
  /** No binds: usable as soon as configured. */
  readonly state = 'bound';
  private readonly pacer: Pacer;

  constructor(
    /** Where this connector and its webhooks hand what they receive. */
    readonly sink: CarrierSink,
    readonly name: string,
    readonly version: number,
    messagesPerSecond: number,
  ) {
    this.pacer = new Pacer(messagesPerSecond);
  }

  protected abstract send(m: OutboundMessage): Promise<SubmitOutcome>;

  async submit(batch: OutboundMessage[]): Promise<SubmitOutcome[]> {
    const outcomes: SubmitOutcome[] = new Array(batch.length);
    let next = 0;
    const lane = async () => {
      while (next < batch.length) {
        const i = next++;
        await this.pacer.take(1);
        try {
          outcomes[i] = fencedOut(batch[i]) ?? (await this.send(batch[i]));
        } catch (err) {
          outcomes[i] = { ok: false, permanent: false, error: `${this.name}: ${(err as Error).message}` };
        }
      }
    };
    await Promise.all(Array.from({ length: Math.min(PARALLEL, batch.length) }, lane));
    const accepted = outcomes.flatMap((o, i) =>
      o.ok && o.carrierId ? [{ index: i, messageId: batch[i].id, carrierIds: [o.carrierId] }] : [],
    );
    await this.sink.accepted(this.name, accepted);
    for (const a of accepted) outcomes[a.index] = { ...outcomes[a.index], idsRecorded: true } as SubmitOutcome;
    for (const o of outcomes) {
      if (o.ok) this.stats.submitted++;
      else if (o.permanent) this.stats.refused++;
      else this.error(o.error);
    }
    return outcomes;
  }

  /** Nothing held between requests. */
  async close(): Promise<void> {}

  error(reason: string): void {
    this.stats.errors++;
    this.stats.last_error = reason.slice(0, 300);
    this.stats.last_error_at = Date.now();
  }
}

/** The body of a provider's answer, as JSON when it is JSON. */
export async function readJson(res: Response): Promise<any> {
  const text = await res.text();
  try {
    return JSON.parse(text);
  } catch {
    return { raw: text.slice(0, 200) };
  }
}
