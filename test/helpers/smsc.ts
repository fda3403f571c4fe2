import type { AddressInfo, Server } from 'node:net';
import { smpp, type Pdu, type SmppSession } from '../../src/smpp-protocol/pdu.js';
import { encodeMessage, type Coding } from '../../src/smpp-protocol/encoding.js';

/** What the SMSC recorded of one submit_sm. */
export interface Submitted {
  messageId: string;
  systemId: string;
  source: string;
  sourceTon: number;
  sourceNpi: number;
  destination: string;
  destTon: number;
  destNpi: number;
  esmClass: number;
  dataCoding: number;
  registeredDelivery: number;
  shortMessage: Buffer;
}

/** How the SMSC answers one submit_sm: accept, refuse with a command_status, or never answer. */
export type Answer = { status: number } | 'accept' | 'silence';

export interface SmscOptions {
  /** Accepted credentials; any when absent. */
  systemId?: string;
  password?: string;
  /** Message ids in submit_sm_resp: hex (default) or decimal. */
  idFormat?: 'hex' | 'decimal';
  /** Receipt to send for each accepted submit_sm, if any. */
  receipt?: (s: Submitted) => ReceiptPlan | null;
  /** Answer per submit_sm (default accept). */
  answer?: (s: Submitted, index: number) => Answer;
  /** Delay before each submit_sm_resp (ms); absent: answered at once. */
  responseDelayMs?: number;
  /** TLS listener with this key and certificate (PEM). */
  tls?: { key: string; cert: string };
  /** Keep what each submit_sm carried in `submitted` (default true; a benchmark only counts). */
  record?: boolean;
}

export interface ReceiptPlan {
  stat: string;
  err?: string;
  delayMs?: number;
  /** The id in the receipt: as given (default), or in the other base. */
  idIn?: 'same' | 'decimal' | 'hex';
  /** Carry receipted_message_id and message_state TLVs (default: text only). */
  tlv?: boolean;
  /** Send the receipt before submit_sm_resp. */
  beforeResponse?: boolean;
  /** The receipt text in Latin-1 (data_coding 3) or UCS-2 (8) instead of data_coding 0. */
  coding?: 'latin1' | 'ucs2';
  /** Rewrites the receipt text before it is sent (a garbled receipt). */
  text?: (text: string) => string;
}

const STATES: Record<string, number> = {
  ENROUTE: 1,
  DELIVRD: 2,
  EXPIRED: 3,
  DELETED: 4,
  UNDELIV: 5,
  ACCEPTD: 6,
  UNKNOWN: 7,
  REJECTD: 8,
};

/**
 * A test SMSC on the `smpp` package's server, speaking SMPP 3.4 as a
 * carrier does: binds (checking credentials), answers submit_sm with ids,
 * sends delivery receipts with a chosen stat and delay, injects customer
 * replies (concatenated too), throttles, answers slowly or not at all, drops
 * connections, and sends raw bytes (hostile PDUs).
 */
export class TestSmsc {
  readonly submitted: Submitted[] = [];
  readonly sessions = new Set<SmppSession>();
  /** Most binds held at once. */
  maxBinds = 0;
  bindCount = 0;
  readonly systemIds: string[] = [];
  enquireLinks = 0;
  unbinds = 0;
  readonly deliverResponses: Pdu[] = [];
  private server!: Server & { sessions: SmppSession[] };
  private nextId = 0x5a0000 + Math.floor(Math.random() * 0x10000);
  private bound = new Map<SmppSession, string>();
  /** Bind command of each bound session (bind_transceiver, bind_transmitter, bind_receiver). */
  readonly bindTypes = new Map<SmppSession, string>();
  port = 0;

  constructor(public options: SmscOptions = {}) {}

  async start(port = 0): Promise<this> {
    this.server = smpp.createServer(this.options.tls ?? {}, (session) => this.onSession(session));
    await new Promise<void>((r) => this.server.listen(port, '127.0.0.1', () => r()));
    this.port = (this.server.address() as AddressInfo).port;
    return this;
  }

  get binds(): number {
    return this.bound.size;
  }

  private onSession(session: SmppSession): void {
    // Responses go out as they are made, as an SMSC's do (no Nagle delay waiting for our ACKs).
    session.socket.setNoDelay(true);
    this.sessions.add(session);
    session.on('error', () => undefined);
    session.on('close', () => {
      this.sessions.delete(session);
      this.bound.delete(session);
      this.bindTypes.delete(session);
    });
    const bind = (pdu: Pdu) => {
      const ok =
        (!this.options.systemId || pdu.system_id === this.options.systemId) &&
        (!this.options.password || pdu.password === this.options.password);
      if (!ok) return session.send(pdu.response({ command_status: 0x0e }));
      this.bound.set(session, pdu.system_id);
      this.bindTypes.set(session, pdu.command);
      this.bindCount++;
      this.systemIds.push(pdu.system_id);
      this.maxBinds = Math.max(this.maxBinds, this.bound.size);
      session.send(pdu.response({ system_id: 'TESTSMSC' }));
    };
    session.on('bind_transceiver', bind);
    session.on('bind_transmitter', bind);
    session.on('bind_receiver', bind);
    session.on('enquire_link', (pdu: Pdu) => {
      this.enquireLinks++;
      session.send(pdu.response());
    });
    session.on('unbind', (pdu: Pdu) => {
      this.unbinds++;
      this.bound.delete(session);
      session.send(pdu.response());
      session.close();
    });
    session.on('deliver_sm_resp', (pdu: Pdu) => this.deliverResponses.push(pdu));
    session.on('submit_sm', (pdu: Pdu) => this.onSubmit(session, pdu));
  }

  /** Every submit_sm received, whatever the answer. */
  received = 0;
  /** When each submit_sm arrived, for which number, and from which port of the peer (which process, behind a link). */
  readonly arrivals: Array<{ at: number; destination: string; peerPort: number }> = [];

  private onSubmit(session: SmppSession, pdu: Pdu): void {
    const index = this.received++;
    this.arrivals.push({ at: Date.now(), destination: pdu.destination_addr, peerPort: session.socket.remotePort ?? 0 });
    const raw = this.nextId++;
    const messageId = this.options.idFormat === 'decimal' ? String(raw) : raw.toString(16);
    if (this.options.record === false) return void session.send(pdu.response({ message_id: messageId }));
    const s: Submitted = {
      messageId,
      systemId: this.bound.get(session) ?? '',
      source: pdu.source_addr,
      sourceTon: pdu.source_addr_ton,
      sourceNpi: pdu.source_addr_npi,
      destination: pdu.destination_addr,
      destTon: pdu.dest_addr_ton,
      destNpi: pdu.dest_addr_npi,
      esmClass: pdu.esm_class,
      dataCoding: pdu.data_coding,
      registeredDelivery: pdu.registered_delivery,
      shortMessage: Buffer.from(pdu.short_message ?? []),
    };
    const answer = this.options.answer?.(s, index) ?? 'accept';
    if (answer === 'silence') return void this.submitted.push({ ...s, messageId: '' });
    if (answer !== 'accept')
      return void setTimeout(
        () => session.send(pdu.response({ command_status: answer.status })),
        this.options.responseDelayMs ?? 0,
      );
    this.submitted.push(s);
    const plan = this.options.receipt?.(s) ?? null;
    const respond = () => session.send(pdu.response({ message_id: messageId }));
    if (plan?.beforeResponse) {
      this.sendReceipt(session, s, plan);
      setTimeout(respond, Math.max(50, this.options.responseDelayMs ?? 0));
      return;
    }
    if (this.options.responseDelayMs) setTimeout(respond, this.options.responseDelayMs);
    else respond();
    if (plan) setTimeout(() => this.sendReceipt(session, s, plan), plan.delayMs ?? 0);
  }

  /** A delivery receipt for an accepted message, on the session that submitted it (or any bound one). */
  sendReceipt(session: SmppSession | null, s: Submitted, plan: ReceiptPlan): void {
    // deliver_sm goes to a session that may receive: the submitting transceiver, or a receiver of the same ESME.
    const canReceive = (x: SmppSession) => this.bindTypes.get(x) !== 'bind_transmitter';
    const target =
      session && this.bound.has(session) && canReceive(session)
        ? session
        : [...this.bound.keys()].find((x) => canReceive(x) && this.bound.get(x) === s.systemId);
    if (!target) return;
    const numeric = this.options.idFormat === 'decimal' ? BigInt(s.messageId) : BigInt(`0x${s.messageId}`);
    const id =
      plan.idIn === 'decimal' ? numeric.toString(10) : plan.idIn === 'hex' ? numeric.toString(16) : s.messageId;
    const standard = `id:${id} sub:001 dlvrd:${plan.stat === 'DELIVRD' ? '001' : '000'} submit date:2311230101 done date:2311230102 stat:${plan.stat} err:${plan.err ?? '000'} text:`;
    const text = plan.text ? plan.text(standard) : standard;
    target.send(
      new smpp.PDU('deliver_sm', {
        source_addr: s.destination,
        destination_addr: s.source,
        esm_class: 0x04,
        data_coding: plan.coding === 'ucs2' ? 8 : plan.coding === 'latin1' ? 3 : 0,
        short_message: plan.coding === 'ucs2' ? Buffer.from(text, 'utf16le').swap16() : Buffer.from(text, 'latin1'),
        ...(plan.tlv ? { receipted_message_id: id, message_state: STATES[plan.stat] ?? 7 } : {}),
      }),
    );
  }

  /** A text receipt (`stat`) for carrier id `id`, on the session bound as `systemId`. */
  sendReceiptTo(systemId: string, id: string, stat = 'DELIVRD'): boolean {
    const target = [...this.bound].find(([, sys]) => sys === systemId)?.[0];
    if (!target) return false;
    const text = `id:${id} sub:001 dlvrd:001 submit date:2311230101 done date:2311230102 stat:${stat} err:000 text:`;
    target.send(
      new smpp.PDU('deliver_sm', {
        source_addr: '',
        destination_addr: '',
        esm_class: 0x04,
        data_coding: 0,
        short_message: Buffer.from(text, 'latin1'),
      }),
    );
    return true;
  }

  /** A customer reply from `from` to `to`; `parts` > 1 splits it with a concatenation UDH. */
  sendReply(
    from: string,
    to: string,
    text: string,
    coding: Coding = 'gsm',
    opts: { sar?: boolean; reference?: number } = {},
  ): void {
    const target = [...this.bound.keys()][0];
    if (!target) throw new Error('no bound session to deliver on');
    const segments = encodeMessage(text, { coding }, opts.reference ?? 42);
    segments.forEach((seg, i) => {
      let shortMessage = seg.shortMessage;
      let esmClass = seg.esmClass;
      const extra: Record<string, unknown> = {};
      if (opts.sar && segments.length > 1) {
        shortMessage = shortMessage.subarray(6);
        esmClass = 0;
        Object.assign(extra, {
          sar_msg_ref_num: opts.reference ?? 42,
          sar_total_segments: segments.length,
          sar_segment_seqnum: i + 1,
        });
      }
      target.send(
        new smpp.PDU('deliver_sm', {
          source_addr: from,
          source_addr_ton: 1,
          source_addr_npi: 1,
          destination_addr: to,
          esm_class: esmClass,
          data_coding: seg.dataCoding,
          short_message: shortMessage,
          ...extra,
        }),
      );
    });
  }

  /** Raw bytes to every bound session (malformed or hostile PDUs). */
  sendRaw(bytes: Buffer): void {
    for (const s of this.bound.keys()) s.socket.write(bytes);
  }

  /** Cuts every connection at once (whatever is outstanding stays unanswered). */
  dropAll(): void {
    for (const s of this.sessions) s.socket.destroy();
  }

  async stop(): Promise<void> {
    this.dropAll();
    await new Promise<void>((r) => this.server.close(() => r()));
  }
}

/** The most arrivals (epoch ms) within any sliding window of `ms` (default a second): [t, t + ms) for every arrival t. */
export function mostInOneSecond(times: number[], ms = 1000): number {
  const sorted = [...times].sort((a, b) => a - b);
  let most = 0;
  for (let i = 0, j = 0; i < sorted.length; i++) {
    while (sorted[j] <= sorted[i] - ms) j++;
    most = Math.max(most, i - j + 1);
  }
  return most;
}
