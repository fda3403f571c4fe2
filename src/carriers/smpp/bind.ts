import type { Logger } from 'pino';
import { SmppLink, type BindType } from './link.js';
import type { Pdu } from '../../smpp-protocol/pdu.js';
import type { SmppSettings } from './settings.js';

/** Backoff before reconnect attempt n (1-based): exponential from 500 ms to 30 s, with ±50% jitter so binds do not stampede. */
export const reconnectDelay = (attempt: number, random = Math.random): number => {
  const base = Math.min(30_000, 500 * 2 ** Math.min(attempt - 1, 10));
  return Math.round(base * (0.5 + random()));
};

export interface BindEvents {
  onDeliver(pdu: Pdu): Promise<void>;
  onError(reason: string): void;
}

/**
 * One bind slot of a connector: a transceiver session, or a transmitter and
 * a receiver session (bind transmitter-receiver). Kept up with reconnects
 * (exponential backoff with jitter) until closed.
 */
export class SmppBind {
  private links: { tx: SmppLink | null; rx: SmppLink | null } = { tx: null, rx: null };
  private stopped = false;
  private attempt = 0;
  private timer: NodeJS.Timeout | null = null;
  state: 'connecting' | 'bound' = 'connecting';

  constructor(
    readonly slot: number,
    private readonly settings: SmppSettings,
    private readonly password: string,
    private readonly events: BindEvents,
    private readonly log: Logger,
  ) {
    void this.connect();
  }

  /** The session submit_sm goes through, when bound. */
  get transmitter(): SmppLink | null {
    return this.state === 'bound' && this.links.tx?.bound ? this.links.tx : null;
  }

  get inFlight(): number {
    return this.links.tx?.inFlight ?? 0;
  }

  private async connect(): Promise<void> {
    if (this.stopped) return;
    const types: Array<[keyof typeof this.links, BindType]> =
      this.settings.bind === 'transceiver'
        ? [['tx', 'transceiver']]
        : [
            ['tx', 'transmitter'],
            ['rx', 'receiver'],
          ];
    try {
      for (const [key, type] of types) {
        const link = new SmppLink({
          settings: this.settings,
          password: this.password,
          type,
          onDeliver: (pdu) => this.events.onDeliver(pdu),
          onClose: (reason) => this.linkClosed(link, reason),
        });
        this.links[key] = link;
        await link.open();
        if (this.stopped) return void (await link.close());
      }
      this.attempt = 0;
      this.state = 'bound';
      this.log.info({ carrier_slot: this.slot, host: this.settings.host }, 'SMPP bound');
    } catch (err) {
      this.log.warn(
        { carrier_slot: this.slot, reason: (err as Error).message },
        'SMPP bind failed: retrying with backoff',
      );
      this.events.onError((err as Error).message);
      this.retry();
    }
  }

  private linkClosed(link: SmppLink, reason: string): void {
    if (link !== this.links.tx && link !== this.links.rx) return;
    const wasBound = this.state === 'bound';
    this.state = 'connecting';
    if (this.stopped) return;
    if (wasBound) {
      this.log.warn({ carrier_slot: this.slot, reason }, 'SMPP session lost: reconnecting');
      this.events.onError(reason);
      // Both sessions of a transmitter-receiver pair go down together and come back together.
      for (const other of [this.links.tx, this.links.rx]) if (other && other !== link) void other.close();
      this.retry();
    }
  }

  private retry(): void {
    if (this.stopped || this.timer) return;
    for (const l of [this.links.tx, this.links.rx]) if (l?.bound) void l.close();
    this.links = { tx: null, rx: null };
    this.state = 'connecting';
    this.timer = setTimeout(() => {
      this.timer = null;
      void this.connect();
    }, reconnectDelay(++this.attempt));
  }

  /** Unbinds (after outstanding responses unless `quick`, see SmppLink.close) and stops reconnecting. */
  async close(quick = false): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    await Promise.all([this.links.tx?.close(quick), this.links.rx?.close(quick)]);
    this.state = 'connecting';
  }
}
