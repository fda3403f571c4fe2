import type { CarrierSink, Connector, ConnectorDeps } from '../adapter.js';
import {
  EXPIRED_OUTCOME,
  FENCED_ERROR,
  type FailedAttempt,
  type OutboundMessage,
  type SubmitOutcome,
} from '../../messaging/ports.js';
import { emptyStats, type ConnectorStats } from '../status.js';
import { SmppBind } from './bind.js';
import { chooseCoding, encodeMessage } from '../../smpp-protocol/encoding.js';
import { BindLeases } from './leases.js';
import type { Pdu } from '../../smpp-protocol/pdu.js';
import type { SmppSettings } from './settings.js';
import { classifyStatus } from './status.js';
import { statusCode, statusName } from '../../smpp-protocol/status.js';
import { SharedThroughput } from './throughput.js';
import { InboundHandler } from './inbound.js';
import { sourceAddress } from './address.js';
import { LineClosed, TrafficLine } from '../traffic-line.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Retries of one segment refused with ESME_RTHROTTLED / ESME_RMSGQFUL before the message goes back to the dispatcher. */
const MAX_THROTTLED_RETRIES = 8;

/** How long a failing record of accepted submits is retried (as the dispatcher retries its record of outcomes). */
const ACCEPTED_RECORD_RETRY_MS = 600_000;

export interface ConnectorConfig {
  name: string;
  version: number;
  settings: SmppSettings;
  password: string;
}

/**
 * One SMPP connector in this process: the binds it holds (leased, see
 * leases.ts), the shared throughput cap, the throttling slow-down, and
 * submission of messages as submit_sm (one per segment).
 */
/** How often the binds' lease fences are checked. */
const FENCE_WATCH_MS = 500;

export class SmppConnector implements Connector {
  private readonly counters: ConnectorStats = emptyStats();
  private readonly binds = new Map<number, SmppBind>();
  private readonly leases: BindLeases;
  private readonly rate: SharedThroughput;
  private readonly inbound: InboundHandler;
  private pausedUntil = 0;
  private pauseMs = 0;
  private reference = Math.floor(Math.random() * 256);
  private closed = false;
  /**
   * Places for messages written to the SMSC whose acceptance is not recorded yet (window × binds), given in the order
   * of the traffic classes and families (traffic-line.ts).
   */
  private readonly line: TrafficLine;

  private readonly sink: CarrierSink;
  private readonly log: ConnectorDeps['log'];

  constructor(
    readonly config: ConnectorConfig,
    { coordination, log, holder, sink }: Pick<ConnectorDeps, 'coordination' | 'log' | 'holder' | 'sink'>,
  ) {
    this.sink = sink;
    this.log = log;
    this.leases = new BindLeases(coordination.leases, config.name, holder);
    this.rate = new SharedThroughput(coordination.throughput, config.name, config.settings.throughput);
    this.inbound = new InboundHandler(sink, config.name, config.settings, this.counters);
    this.line = new TrafficLine(config.settings.window * config.settings.binds);
    this.fenceWatch = setInterval(() => this.closeUnrenewedBinds(), FENCE_WATCH_MS);
    this.fenceWatch.unref();
  }

  private readonly fenceWatch: NodeJS.Timeout;
  private renewing = false;

  /**
   * A bind whose lease this process could not renew in time (cut off from the
   * database) is closed at once, without waiting for its outstanding
   * responses, before another process may bind in its place: the SMSC never
   * sees more than `binds` sessions of this connector.
   */
  private closeUnrenewedBinds(): void {
    // The upkeep renews every CARRIER_POLL_MS; when that is long (or a round is late), renew from here.
    if (!this.renewing && [...this.binds.keys()].some((slot) => this.leases.due(slot))) {
      this.renewing = true;
      void this.leases
        .renew([...this.binds.keys()])
        .catch(() => undefined)
        .finally(() => (this.renewing = false));
    }
    for (const [slot, bind] of this.binds) {
      if (this.leases.holds(slot)) continue;
      this.binds.delete(slot);
      this.log.warn({ carrier: this.name, slot }, 'closing a bind whose lease could not be renewed');
      void bind.close(true);
    }
  }

  /** Counters, with binds and window in use as of now. */
  get stats(): ConnectorStats {
    this.counters.binds = [...this.binds.values()].filter((b) => b.state === 'bound').length;
    this.counters.window_in_use = [...this.binds.values()].reduce((n, b) => n + b.inFlight, 0);
    this.counters.line = this.line.waiting();
    return this.counters;
  }

  get name(): string {
    return this.config.name;
  }

  get version(): number {
    return this.config.version;
  }

  get state(): 'bound' | 'connecting' {
    return [...this.binds.values()].some((b) => b.state === 'bound') ? 'bound' : 'connecting';
  }

  /** Usable from this process now: at least one bind is up. */
  get available(): boolean {
    return !this.closed && [...this.binds.values()].some((b) => b.transmitter);
  }

  /**
   * Lease upkeep (every few seconds): renews held slots, closes binds whose
   * lease was lost or whose slot is above `binds`, and moves towards a fair
   * share of the binds among the `processes` running: above it, one bind is
   * given back (another process takes it); below it, one more free slot is
   * taken. One step per tick, so processes starting together share.
   */
  async tick(processes = 1): Promise<void> {
    if (this.closed) return;
    const held = await this.leases.renew([...this.binds.keys()]);
    for (const [slot, bind] of this.binds) {
      if (!held.includes(slot) || slot >= this.config.settings.binds) await this.dropBind(slot, bind);
    }
    const share = Math.ceil(this.config.settings.binds / Math.max(1, processes));
    if (this.binds.size > share) {
      const slot = Math.max(...this.binds.keys());
      await this.dropBind(slot, this.binds.get(slot)!);
    } else if (this.binds.size < share) {
      const slot = await this.leases.acquire(this.config.settings.binds, [...this.binds.keys()]);
      if (slot !== null && !this.closed) this.binds.set(slot, this.openBind(slot));
    }
  }

  /** Unbinds (after its outstanding responses) and only then frees the slot, so the deployment never holds more than `binds`. */
  private async dropBind(slot: number, bind: SmppBind): Promise<void> {
    this.binds.delete(slot);
    void bind.close().then(() => this.leases.release([slot]).catch(() => undefined));
  }

  private openBind(slot: number): SmppBind {
    return new SmppBind(
      slot,
      this.config.settings,
      this.config.password,
      {
        onDeliver: (pdu: Pdu) => this.inbound.handle(pdu),
        onError: (reason) => this.error(reason),
      },
      this.log.child({ carrier: this.name }),
    );
  }

  private error(reason: string): void {
    this.counters.errors++;
    this.counters.last_error = reason.slice(0, 300);
    this.counters.last_error_at = Date.now();
  }

  /**
   * Submits each message of the batch. A message's carrier ids are recorded
   * (smpp_ids) as soon as its last segment is acknowledged, before its
   * outcome comes back, and at most window × binds messages are between
   * their first submit_sm and that record at any moment (this.line):
   * a crash can leave no more acknowledged messages unrecorded, and those
   * recorded are never handed over again (see docs/contributors/architecture.md).
   */
  submit(batch: OutboundMessage[]): Promise<SubmitOutcome[]> {
    return Promise.all(batch.map((m) => this.submitRecorded(m)));
  }

  /** Holds one of the window × binds places from before the first submit_sm until the ids are durable or the submit failed. */
  private async submitRecorded(m: OutboundMessage): Promise<SubmitOutcome> {
    try {
      const outcome = await this.line.run(m, async () => {
        const r = await this.submitOne(m);
        if (r.ids && r.ids.length > 0 && (await this.recordAccepted(m.id, r.ids)) && r.outcome.ok)
          return { ...r.outcome, idsRecorded: true };
        return r.outcome;
      });
      return outcome === 'expired' ? EXPIRED_OUTCOME : outcome;
    } catch (err) {
      if (!(err instanceof LineClosed)) throw err;
      // Never written: parked for the next holder of a bind of this connector, no failed attempt recorded.
      return { ok: false, permanent: false, error: `${this.name}: ${err.message}`, elsewhere: this.name };
    }
  }

  refuseWaiting(): void {
    this.line.close(new LineClosed('this process stopped before its turn'));
  }

  /**
   * Records the ids of one accepted message; what is acknowledged in the same
   * turn of the event loop is recorded together (a receipt that came first,
   * kept in carrier_receipts, is applied right there). A failing write is
   * retried (while the connector is open, for up to ACCEPTED_RECORD_RETRY_MS):
   * the place stays taken, so nothing more goes to the SMSC meanwhile. After
   * that the outcome goes back anyway, and the dispatcher's record of it is
   * the durable one (it writes the message's carrier id then). Resolves
   * whether the ids were recorded.
   */
  private recordAccepted(messageId: number, carrierIds: string[]): Promise<boolean> {
    return new Promise<boolean>((done) => {
      this.acceptedQueue.push({ entry: { messageId, carrierIds }, done });
      this.recordingAccepted ??= new Promise<void>((r) => setImmediate(r)).then(() => this.flushAccepted());
    });
  }

  private acceptedQueue: Array<{
    entry: { messageId: number; carrierIds: string[] };
    done: (recorded: boolean) => void;
  }> = [];
  private recordingAccepted: Promise<void> | null = null;

  private async flushAccepted(): Promise<void> {
    while (this.acceptedQueue.length > 0) {
      const group = this.acceptedQueue.splice(0, this.acceptedQueue.length);
      const started = Date.now();
      let recorded = false;
      for (let attempt = 1; ; attempt++) {
        try {
          await this.sink.accepted(
            this.name,
            group.map((g) => g.entry),
          );
          recorded = true;
          break;
        } catch (err) {
          this.error(`recording accepted submits: ${(err as Error).message}`);
          if (this.closed || Date.now() - started >= ACCEPTED_RECORD_RETRY_MS) break;
          this.log.error({ err, messages: group.length, attempt }, 'recording accepted submits failed; retrying');
          await sleep(Math.min(50 * 2 ** attempt, 5000));
        }
      }
      for (const g of group) g.done(recorded);
    }
    this.recordingAccepted = null;
  }

  private async submitOne(m: OutboundMessage): Promise<{ outcome: SubmitOutcome; ids?: string[] }> {
    const s = this.config.settings;
    const coding = chooseCoding(m.text, s.coding);
    const segments = encodeMessage(m.text, { coding, packed: s.packed, flash: m.flash }, this.reference++ & 0xff);
    const source = m.sender ?? s.default_sender ?? '';
    const type = sourceAddress(source);
    const ids: string[] = [];
    // Throttled answers before the SMSC took it (or gave up): the message trace lists them.
    const throttles: FailedAttempt[] = [];
    const fail = (permanent: boolean, error: string, code?: string): { outcome: SubmitOutcome } => {
      const last = { carrier: this.name, at: Date.now(), code, error };
      return {
        outcome: { ok: false, permanent, error, code, ...(throttles.length ? { failed: [...throttles, last] } : {}) },
      };
    };
    for (const seg of segments) {
      const fields = {
        source_addr_ton: s.source_ton ?? type.ton,
        source_addr_npi: s.source_npi ?? type.npi,
        source_addr: source,
        dest_addr_ton: s.dest_ton,
        dest_addr_npi: s.dest_npi,
        destination_addr: m.number,
        esm_class: seg.esmClass,
        registered_delivery: 1,
        data_coding: seg.dataCoding,
        short_message: seg.shortMessage,
      };
      for (let throttled = 0; ; throttled++) {
        if (Date.now() < this.pausedUntil) await this.waitIfSlowedDown();
        if (this.rate.capped) await this.rate.take();
        const link = this.pickLink();
        if (!link) return fail(false, `${this.name}: not bound`);
        let resp: Pdu | null;
        try {
          // Checked right before the first segment is written only: a message is never cut in two by its fence.
          resp = await link.submit(fields, ids.length === 0 ? m.fence : undefined);
        } catch (err) {
          this.error((err as Error).message);
          // Not taken, or taken with its response lost (err.maybeSent): either way the dispatcher sends it again (docs/contributors/architecture.md, duplicates).
          return fail(false, `${this.name}: ${(err as Error).message}`);
        }
        if (resp === null) return fail(false, FENCED_ERROR);
        const kind = classifyStatus(resp.command_status);
        if (kind === 'ok') {
          this.pauseMs = 0;
          this.counters.submitted++;
          ids.push(String(resp.message_id ?? ''));
          break;
        }
        const error = `${this.name}: ${statusName(resp.command_status)}`;
        const code = statusCode(resp.command_status);
        if (kind === 'throttled') {
          this.counters.throttled++;
          this.slowDown();
          if (throttled < MAX_THROTTLED_RETRIES) {
            throttles.push({ carrier: this.name, at: Date.now(), code, error });
            continue;
          }
        }
        if (kind === 'permanent') {
          this.counters.refused++;
          return fail(true, error, code);
        }
        this.error(error);
        return fail(false, error, code);
      }
    }
    return {
      outcome: {
        ok: true,
        carrierId: ids[0],
        parts: segments.length,
        ...(throttles.length ? { failed: throttles } : {}),
      },
      ids: ids.filter((id) => id !== ''),
    };
  }

  /** The bound transmitter with the most room in its window. */
  private pickLink() {
    let best = null;
    for (const b of this.binds.values()) {
      const t = b.transmitter;
      if (t && (!best || t.inFlight < best.inFlight)) best = t;
    }
    return best;
  }

  /** Throttled: pause this connector, doubling from 100 ms up to 10 s while the SMSC keeps throttling. */
  private slowDown(): void {
    this.pauseMs = Math.min(10_000, Math.max(100, this.pauseMs * 2));
    this.pausedUntil = Math.max(this.pausedUntil, Date.now() + this.pauseMs);
  }

  private async waitIfSlowedDown(): Promise<void> {
    while (Date.now() < this.pausedUntil) await sleep(this.pausedUntil - Date.now());
  }

  /**
   * Unbinds every bind (each after its outstanding responses) and frees the
   * slots; the leases are kept alive meanwhile, so no other process binds in
   * their place while these sessions still exist.
   */
  close(): Promise<void> {
    return (this.closing ??= this.unbindAll());
  }

  private closing: Promise<void> | null = null;

  private async unbindAll(): Promise<void> {
    this.closed = true;
    this.line.close(new LineClosed('the connector closed before its turn'));
    clearInterval(this.fenceWatch);
    const slots = [...this.binds.keys()];
    const keep = setInterval(() => void this.leases.renew(slots).catch(() => undefined), 5000);
    try {
      await Promise.all([...this.binds.values()].map((b) => b.close()));
    } finally {
      clearInterval(keep);
    }
    this.binds.clear();
    await this.leases.release().catch(() => undefined);
  }
}
