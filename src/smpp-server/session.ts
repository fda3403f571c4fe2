import type { Socket } from 'node:net';
import type { AppContext } from '../context.js';
import { checkBind } from '../features/smpp-users/bind.js';
import { releaseBind, type SmppUserRow } from '../features/smpp-users/service.js';
import { newPdu, PduReader, type Pdu } from './pdus.js';
import { Status } from '../smpp-protocol/status.js';
import { submitTurn, type SubmitAnswer } from './submit.js';
import { submitMulti, type MultiAnswer } from './submit-multi.js';
import { cancelSm, querySm } from './queries.js';
import type { SmppServerMetrics } from './metrics.js';
import { Resubmissions } from './resubmits.js';

export type BindMode = 'transmitter' | 'receiver' | 'transceiver';

export interface SessionOptions {
  /** Idle this long, the server asks with enquire_link. */
  enquireLinkMs: number;
  /** Silent this long (no PDU at all), the session is unbound and closed. */
  inactivityMs: number;
  /** Requests of one session handled at once; over it, the socket is not read (back-pressure). */
  maxInFlight: number;
  /** A session not bound this long after it connected is closed (SMPP_SERVER_BIND_TIMEOUT_SECONDS). */
  bindTimeoutMs: number;
  /** A PDU begun and not complete this long later closes the session (SMPP_SERVER_READ_TIMEOUT_SECONDS). */
  readTimeoutMs: number;
  /** Answers waiting for the customer to read them past this many bytes: the socket is not read until they drain. */
  outputPauseBytes: number;
  /** Past this many bytes waiting to be read by the customer, the session is closed. */
  outputLimitBytes: number;
}

export interface SessionHost {
  ctx: AppContext;
  holder: string;
  options: SessionOptions;
  metrics: SmppServerMetrics;
  /** The session ended (closed socket). */
  ended(session: CustomerSession): void;
}

const BIND_MODES: Record<string, BindMode> = {
  bind_transmitter: 'transmitter',
  bind_receiver: 'receiver',
  bind_transceiver: 'transceiver',
};

/** One customer connection: framing, bind state, the PDUs it sends and the ones the server sends it. */
export class CustomerSession {
  bound: { user: SmppUserRow; slot: number; mode: BindMode } | null = null;
  /** Counted since the last renewal of the bind row. */
  counts = { submitted: 0, delivered: 0 };
  private readonly reader = new PduReader();
  private readonly waiting = new Map<number, (pdu: Pdu) => void>();
  private sequence = 0;
  private inFlight = 0;
  private binding = false;
  private closed = false;
  private corked = false;
  private readonly opened = Date.now();
  private lastHeard = this.opened;
  /** Since when the reader holds the beginning of a PDU not complete yet (null: none). */
  private partialSince: number | null = null;
  private timer: NodeJS.Timeout;
  private readonly resubmits: Resubmissions;

  constructor(
    readonly socket: Socket,
    readonly address: string,
    private readonly host: SessionHost,
  ) {
    socket.on('data', (chunk: Buffer) => this.received(chunk));
    socket.on('error', () => this.close());
    socket.on('close', () => this.ended());
    socket.on('drain', () => this.drain());
    this.resubmits = new Resubmissions(
      host.ctx.db,
      host.ctx.log,
      host.ctx.config.SMPP_SERVER_RESUBMIT_WINDOW_SECONDS * 1000,
    );
    const { enquireLinkMs, inactivityMs, bindTimeoutMs, readTimeoutMs } = host.options;
    const tick = Math.max(50, Math.min(enquireLinkMs, inactivityMs, bindTimeoutMs, readTimeoutMs) / 2);
    this.timer = setInterval(() => this.watchSilence(), tick);
  }

  /** deliver_sm sent and not yet answered. */
  private outstanding = 0;

  /** Room in the user's window for more deliver_sm (0 when not a receiver). */
  get room(): number {
    if (this.closed || !this.bound || this.bound.mode === 'transmitter') return 0;
    return Math.max(0, this.bound.user.window_size - this.outstanding);
  }

  /** Requests sent and waiting for their response. */
  get awaiting(): number {
    return this.waiting.size;
  }

  /** Sends one deliver_sm; resolves with the customer's command_status, or null (no answer in time, session closed). */
  async deliver(fields: Record<string, unknown>, timeoutMs: number): Promise<number | null> {
    this.outstanding++;
    try {
      const resp = await this.request('deliver_sm', fields, timeoutMs);
      if (resp?.command_status === 0) this.counts.delivered++;
      return resp ? resp.command_status : null;
    } finally {
      this.outstanding--;
    }
  }

  /**
   * Sends a request and resolves with its response, or null when the session
   * closes first or no response comes within `timeoutMs` (then a late one is ignored).
   */
  request(command: string, options: Record<string, unknown> = {}, timeoutMs = 10_000): Promise<Pdu | null> {
    if (this.closed) return Promise.resolve(null);
    this.sequence = this.sequence >= 0x7fffffff ? 1 : this.sequence + 1;
    const sequence = this.sequence;
    const pdu = newPdu(command, { ...options, sequence_number: sequence });
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.waiting.delete(sequence);
        resolve(null);
      }, timeoutMs);
      timer.unref();
      this.waiting.set(sequence, (resp) => {
        clearTimeout(timer);
        resolve(resp);
      });
      this.write(pdu);
    });
  }

  /** Unbind politely, then close whatever the answer. */
  async unbind(): Promise<void> {
    if (this.closed) return;
    await this.request('unbind', {}, 1000);
    this.close();
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.socket.end();
    setTimeout(() => this.socket.destroy(), 2000).unref();
  }

  /** Whether what is written now reaches the socket (not closing, not closed). */
  private writable(): boolean {
    return !this.closed && this.socket.writable;
  }

  /**
   * PDUs written in one turn go out in one system call: the answers of a
   * group commit's batch are resolved together, and a write each cost 6 % of
   * the server's CPU at window 100.
   */
  private write(pdu: Pdu): void {
    if (!this.writable()) return;
    if (!this.corked) {
      this.corked = true;
      this.socket.cork();
      process.nextTick(() => {
        this.corked = false;
        this.socket.uncork();
      });
    }
    this.socket.write(pdu.toBuffer());
    if (this.socket.writableLength > this.host.options.outputLimitBytes) {
      this.host.metrics.unread.inc();
      this.closed = true;
      this.socket.destroy();
    }
  }

  /**
   * Answers wait for the customer to read them: reading more requests would
   * only pile up more. Never under the socket's high-water mark, so the
   * socket's 'drain' (emitted once it empties) resumes the reading.
   */
  private outputFull(): boolean {
    const bound = Math.max(this.host.options.outputPauseBytes, this.socket.writableHighWaterMark);
    return this.socket.writableLength >= bound;
  }

  private received(chunk: Buffer): void {
    this.lastHeard = Date.now();
    this.reader.push(chunk);
    this.drain();
  }

  private drain(): void {
    // The submit_sm read in one go are sent as one turn: one write of their messages (submitTurn).
    const turn: Pdu[] = [];
    while (!this.closed && this.inFlight < this.host.options.maxInFlight && !this.outputFull()) {
      const pdu = this.reader.next();
      if (pdu === null) break;
      if (pdu === 'malformed') {
        this.host.metrics.malformed.inc();
        this.socket.destroy();
        this.closed = true;
        return;
      }
      if (pdu.command === 'submit_sm' && this.bound && this.bound.mode !== 'receiver') {
        this.inFlight++;
        turn.push(pdu);
      } else this.dispatch(pdu);
    }
    if (turn.length > 0) this.runTurn(turn);
    if (this.closed) return;
    if (this.reader.incomplete()) this.partialSince ??= Date.now();
    else this.partialSince = null;
    if (this.inFlight >= this.host.options.maxInFlight || this.outputFull()) this.socket.pause();
    else this.socket.resume();
  }

  private runTurn(pdus: Pdu[]): void {
    const answered = new Set<Pdu>();
    this.submitSms(pdus, answered)
      .catch((err) => {
        this.host.ctx.log.error({ err, command: 'submit_sm' }, 'SMPP request failed');
        for (const pdu of pdus) if (!answered.has(pdu)) this.write(pdu.response({ command_status: Status.SYSERR }));
      })
      .finally(() => {
        this.inFlight -= pdus.length;
        this.drain();
      });
  }

  private dispatch(pdu: Pdu): void {
    if (pdu.isResponse()) {
      const resolve = this.waiting.get(pdu.sequence_number);
      this.waiting.delete(pdu.sequence_number);
      resolve?.(pdu);
      return;
    }
    this.inFlight++;
    this.handle(pdu)
      .catch((err) => {
        this.host.ctx.log.error({ err, command: pdu.command }, 'SMPP request failed');
        this.write(pdu.response({ command_status: Status.SYSERR }));
      })
      .finally(() => {
        this.inFlight--;
        this.drain();
      });
  }

  private async handle(pdu: Pdu): Promise<void> {
    const mode = BIND_MODES[pdu.command];
    if (mode) return this.bind(pdu, mode);
    switch (pdu.command) {
      case 'enquire_link':
        return this.write(pdu.response());
      case 'unbind':
        this.write(pdu.response());
        return this.close();
      case 'submit_sm': // a bound transmitter's or transceiver's are sent as a turn (drain)
        return this.write(pdu.response({ command_status: Status.INVBNDSTS }));
      case 'submit_multi':
        return this.submitMulti(pdu);
      case 'query_sm':
      case 'cancel_sm':
        if (!this.bound || this.bound.mode === 'receiver')
          return this.write(pdu.response({ command_status: Status.INVBNDSTS }));
        return this.write(
          await (pdu.command === 'query_sm' ? querySm : cancelSm)(
            this.host.ctx,
            Number(this.bound.user.account_id),
            pdu,
          ),
        );
      case 'unknown':
        return this.write(pdu.response());
      default:
        return this.write(pdu.response({ command_status: Status.INVCMDID }));
    }
  }

  private async bind(pdu: Pdu, mode: BindMode): Promise<void> {
    const command = `${pdu.command}_resp`;
    if (this.bound || this.binding) return this.write(pdu.response({ command_status: Status.ALYBND }));
    this.binding = true;
    try {
      const outcome = await checkBind(this.host.ctx.db, {
        systemId: String(pdu.system_id ?? ''),
        password: String(pdu.password ?? ''),
        address: this.address,
        mode,
        holder: this.host.holder,
      });
      // Only SMPP users' system ids label the metric: invented ones would grow /metrics without limit.
      const systemId = 'user' in outcome ? outcome.user.system_id : (outcome.systemId ?? 'unknown');
      this.host.metrics.binds.inc({ system_id: systemId, status: String(outcome.status) });
      if (!('user' in outcome))
        return this.write(newPdu(command, { sequence_number: pdu.sequence_number, command_status: outcome.status }));
      if (mode !== 'receiver') await this.resubmits.bound(outcome.user.id);
      if (this.closed) return releaseBind(this.host.ctx.db.kysely, this.host.holder, outcome.user.id, outcome.slot);
      this.bound = { user: outcome.user, slot: outcome.slot, mode };
      this.write(pdu.response({ system_id: 'Mensajero' }));
    } finally {
      this.binding = false;
    }
  }

  /** submit_multi: the answer, counted per user and status. */
  private async submitMulti(pdu: Pdu): Promise<void> {
    if (!this.bound || this.bound.mode === 'receiver')
      return this.write(pdu.response({ command_status: Status.INVBNDSTS }));
    this.answerSubmit(pdu, await submitMulti(this.host.ctx, this.bound.user, pdu));
  }

  /** The submit_sm of one turn of a bound transmitter or transceiver; `answered` collects those answered. */
  private async submitSms(pdus: Pdu[], answered: Set<Pdu>): Promise<void> {
    const { user } = this.bound!;
    const fresh: Pdu[] = [];
    for (const pdu of pdus) {
      const earlier = await this.resubmits.earlier(pdu);
      if (earlier === undefined) fresh.push(pdu);
      else {
        answered.add(pdu);
        if (earlier === 'busy') this.write(pdu.response({ command_status: Status.SYSERR }));
        else {
          this.host.metrics.resubmits.inc({ system_id: user.system_id });
          this.write(pdu.response({ message_id: earlier }));
        }
      }
    }
    if (fresh.length === 0) return;
    const runs = fresh.map((pdu) => this.resubmits.started(pdu));
    let answers: SubmitAnswer[] = [];
    try {
      answers = await submitTurn(this.host.ctx, user, fresh);
      fresh.forEach((pdu, i) => {
        answered.add(pdu);
        this.answerSubmit(pdu, answers[i]);
      });
    } finally {
      const written = this.writable();
      await Promise.all(
        runs.map((run, i) => this.resubmits.finished(run, user.id, answers[i]?.messageId ?? null, written)),
      );
    }
  }

  private answerSubmit(pdu: Pdu, answer: SubmitAnswer | MultiAnswer): void {
    this.host.metrics.submits.inc({ system_id: this.bound!.user.system_id, status: String(answer.status) });
    if (answer.status !== Status.OK) return this.write(pdu.response({ command_status: answer.status }));
    this.counts.submitted++;
    this.write(
      pdu.response({
        message_id: answer.messageId,
        ...('unsuccess' in answer ? { unsuccess_sme: answer.unsuccess } : {}),
      }),
    );
  }

  private watchSilence(): void {
    const now = Date.now();
    const { bindTimeoutMs, readTimeoutMs } = this.host.options;
    if (this.closed) return;
    const late =
      !this.bound && !this.binding && now - this.opened >= bindTimeoutMs
        ? 'bind'
        : this.partialSince !== null && now - this.partialSince >= readTimeoutMs
          ? 'read'
          : null;
    if (late) {
      this.host.metrics.timedOut.inc({ reason: late });
      this.closed = true;
      return void this.socket.destroy();
    }
    const idle = now - this.lastHeard;
    if (idle >= this.host.options.inactivityMs) {
      this.host.metrics.inactive.inc();
      void this.unbind();
    } else if (idle >= this.host.options.enquireLinkMs && this.bound) void this.request('enquire_link');
  }

  private ended(): void {
    this.closed = true;
    if (this.bound) this.resubmits.dropped(this.bound.user.id);
    clearInterval(this.timer);
    for (const resolve of this.waiting.values()) resolve(null as unknown as Pdu);
    this.waiting.clear();
    this.host.ended(this);
  }
}
