import { readFileSync } from 'node:fs';
import { isIP } from 'node:net';
import { smpp, type Pdu, type SmppSession } from '../../smpp-protocol/pdu.js';
import type { SmppSettings } from './settings.js';

/** TLS verified against the system CAs, or the connector's own CA file; SNI only for a host name. */
function tlsOptions(settings: SmppSettings): Record<string, unknown> {
  if (!settings.tls) return { tls: false };
  return {
    tls: true,
    ...(isIP(settings.host) ? {} : { servername: settings.host }),
    ...(settings.tls_ca ? { ca: readFileSync(settings.tls_ca) } : {}),
  };
}

/** A bind refused, a response that never came, a connection lost: the message may be retried. */
export class LinkError extends Error {
  constructor(
    message: string,
    /** The SMSC may have taken the PDU (its response was lost): a resend can duplicate. */
    readonly maybeSent = false,
  ) {
    super(message);
  }
}

export type BindType = 'transceiver' | 'transmitter' | 'receiver';

export interface LinkOptions {
  settings: SmppSettings;
  password: string;
  type: BindType;
  /** Receives deliver_sm; the SMSC gets deliver_sm_resp when it resolves (ESME_RX_T_APPN when it throws). */
  onDeliver(pdu: Pdu): Promise<void>;
  onClose(reason: string): void;
}

interface Outstanding {
  resolve(pdu: Pdu): void;
  reject(err: Error): void;
  deadline: number;
}

const ESME_RX_T_APPN = 0x64;
const GENERIC_NACK_INVALID_COMMAND = 0x03;

/**
 * One SMPP session: connect (TLS when asked), bind, enquire_link on a timer
 * (and answer the SMSC's), a window of outstanding submit_sm with a response
 * timeout, unbind on close. Anything malformed from the SMSC ends this
 * session only; the connector reconnects.
 */
export class SmppLink {
  private session: SmppSession | null = null;
  private readonly outstanding = new Map<number, Outstanding>();
  private readonly waiters: Array<() => void> = [];
  private enquireTimer: NodeJS.Timeout | null = null;
  /** One timer checks every response deadline (a timer per submit_sm costs more than the send at high rates). */
  private deadlineTimer: NodeJS.Timeout | null = null;
  private lastHeard = Date.now();
  private closed = false;
  bound = false;

  constructor(private readonly o: LinkOptions) {}

  get inFlight(): number {
    return this.outstanding.size;
  }

  get window(): number {
    return this.o.settings.window;
  }

  /** Connects and binds; rejects with the reason when the SMSC refuses or the connection fails. */
  open(): Promise<void> {
    const { settings } = this.o;
    return new Promise((resolve, reject) => {
      let settled = false;
      const fail = (reason: string) => {
        if (settled) return;
        settled = true;
        this.shutdown(reason);
        reject(new LinkError(reason));
      };
      const session = smpp.connect({ host: settings.host, port: settings.port, ...tlsOptions(settings) });
      this.session = session;
      const connectTimer = setTimeout(() => fail('connect timed out'), settings.response_timeout_seconds * 1000);
      session.on('error', (err: Error) => {
        if (!settled) fail(`connection failed: ${err.message}`);
        else this.shutdown(`session error: ${err.message}`);
      });
      session.on('close', () => {
        clearTimeout(connectTimer);
        if (!settled) fail('connection closed before bind');
        else this.shutdown('connection closed');
      });
      session.on('pdu', (pdu: Pdu) => this.onPdu(pdu));
      session.on(settings.tls ? 'secureConnect' : 'connect', () => {
        // Request/response traffic: no Nagle delay (bursts are already coalesced by corkUntilNextTick).
        session.socket.setNoDelay(true);
        session.send(
          new smpp.PDU(`bind_${this.o.type}`, {
            sequence_number: this.nextSequence(),
            system_id: settings.system_id,
            password: this.o.password,
            system_type: settings.system_type,
            interface_version: 0x34,
          }),
          (resp) => {
            clearTimeout(connectTimer);
            if (resp.command_status !== 0) return fail(`bind refused: status 0x${resp.command_status.toString(16)}`);
            settled = true;
            this.bound = true;
            this.lastHeard = Date.now();
            this.startEnquireLink();
            this.startDeadlines();
            resolve();
          },
        );
      });
    });
  }

  private startEnquireLink(): void {
    const periodMs = this.o.settings.enquire_link_seconds * 1000;
    this.enquireTimer = setInterval(() => {
      // Nothing heard for two periods (not even our enquire_link's answer): the link is dead.
      if (Date.now() - this.lastHeard > 2 * periodMs) return this.shutdown('no answer to enquire_link');
      this.session?.send(new smpp.PDU('enquire_link', { sequence_number: this.nextSequence() }));
    }, periodMs);
    this.enquireTimer.unref();
  }

  private onPdu(pdu: Pdu): void {
    this.lastHeard = Date.now();
    const session = this.session;
    if (!session) return;
    try {
      if (pdu.isResponse()) {
        const pending = this.outstanding.get(pdu.sequence_number);
        if (pending) {
          this.outstanding.delete(pdu.sequence_number);
          pending.resolve(pdu);
          this.waiters.shift()?.();
        }
        return;
      }
      switch (pdu.command) {
        case 'enquire_link':
          session.send(pdu.response());
          return;
        case 'unbind':
          session.send(pdu.response());
          this.shutdown('the SMSC unbound');
          return;
        case 'deliver_sm':
        case 'data_sm':
          this.o.onDeliver(pdu).then(
            () => this.session?.send(pdu.response({ message_id: '' })),
            () => this.session?.send(pdu.response({ command_status: ESME_RX_T_APPN })),
          );
          return;
        case 'alert_notification':
          return;
        default:
          session.send(
            new smpp.PDU('generic_nack', {
              sequence_number: pdu.sequence_number,
              command_status: GENERIC_NACK_INVALID_COMMAND,
            }),
          );
      }
    } catch (err) {
      this.shutdown(`unreadable PDU from the SMSC: ${(err as Error).message}`);
    }
  }

  /**
   * Waits for room in the window, sends submit_sm, resolves with its response (any command_status); null, and
   * nothing sent, when `fence` closed meanwhile (this process may no longer hand the message over).
   */
  async submit(fields: Record<string, unknown>, fence?: { readonly valid: boolean }): Promise<Pdu | null> {
    while (this.outstanding.size >= this.o.settings.window) {
      if (!this.bound) throw new LinkError('not bound');
      await new Promise<void>((r) => this.waiters.push(r));
    }
    if (fence && !fence.valid) {
      this.waiters.shift()?.(); // the room it waited for goes to the next in line
      return null;
    }
    const session = this.session;
    if (!this.bound || !session) throw new LinkError('not bound');
    if (!session.socket.writable) throw new LinkError('connection not writable');
    const pdu = new smpp.PDU('submit_sm', { ...fields, sequence_number: this.nextSequence() });
    this.queueWrite(pdu.toBuffer());
    return new Promise<Pdu>((resolve, reject) => {
      this.outstanding.set(pdu.sequence_number, {
        resolve,
        reject,
        deadline: Date.now() + this.o.settings.response_timeout_seconds * 1000,
      });
    });
  }

  /** Our own sequence numbers for every request we send (the package's counter is never used). */
  private sequence = 0;
  private nextSequence(): number {
    this.sequence = this.sequence >= 0x7fffffff ? 1 : this.sequence + 1;
    return this.sequence;
  }

  /** submit_sm PDUs made in one burst go out as one buffer in one write, instead of one system call each. */
  private pending: Buffer[] = [];
  private queueWrite(bytes: Buffer): void {
    this.pending.push(bytes);
    if (this.pending.length > 1) return;
    process.nextTick(() => {
      const chunk = this.pending.length === 1 ? this.pending[0] : Buffer.concat(this.pending);
      this.pending = [];
      if (this.session?.socket.writable) this.session.socket.write(chunk);
    });
  }

  private startDeadlines(): void {
    this.deadlineTimer = setInterval(
      () => {
        const now = Date.now();
        for (const [sequence, p] of this.outstanding) {
          if (p.deadline > now) continue;
          this.outstanding.delete(sequence);
          this.waiters.shift()?.();
          p.reject(new LinkError('no submit_sm_resp in time', true));
        }
      },
      Math.min(1000, this.o.settings.response_timeout_seconds * 250),
    );
    this.deadlineTimer.unref();
  }

  /**
   * Graceful close: waits (up to the response timeout) for outstanding
   * responses, so no message is left in doubt, then unbind and close. `quick`
   * (a bind whose lease can no longer be renewed): no wait for responses, and
   * at most a second for the unbind, so the session is gone before another
   * process may bind in its place.
   */
  async close(quick = false): Promise<void> {
    if (this.closed) return;
    this.bound = false;
    const deadline = quick ? 0 : Date.now() + this.o.settings.response_timeout_seconds * 1000;
    while (this.outstanding.size > 0 && Date.now() < deadline && this.session)
      await new Promise((r) => setTimeout(r, 20));
    const session = this.session;
    if (session && session.socket.writable) {
      await new Promise<void>((resolve) => {
        const t = setTimeout(resolve, quick ? 1000 : 2000);
        session.send(new smpp.PDU('unbind', { sequence_number: this.nextSequence() }), () => {
          clearTimeout(t);
          resolve();
        });
      });
    }
    this.shutdown('closed');
  }

  private shutdown(reason: string): void {
    if (this.closed) return;
    this.closed = true;
    this.bound = false;
    if (this.enquireTimer) clearInterval(this.enquireTimer);
    if (this.deadlineTimer) clearInterval(this.deadlineTimer);
    // A submit_sm whose response never came may have been taken by the SMSC.
    for (const [, p] of this.outstanding) {
      p.reject(new LinkError(`connection lost before submit_sm_resp (${reason})`, true));
    }
    this.outstanding.clear();
    for (const w of this.waiters.splice(0)) w();
    const session = this.session;
    this.session = null;
    session?.destroy();
    this.o.onClose(reason);
  }
}
