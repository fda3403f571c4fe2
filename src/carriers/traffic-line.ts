import type { OutboundMessage, TrafficClass } from '../messaging/ports.js';

/**
 * A connector's line: the messages waiting for one of its places (window × binds for SMPP), handed a place by
 * class, `otp` first, then `transactional`, then `bulk`, except that `bulk`, while it waits, gets at least one place
 * in BULK_EVERY, so a steady flow of transactional traffic never starves a campaign. Within a class, families take
 * turns (stride scheduling: a family with weight w gets w turns for one of a family with weight 1), however many
 * messages each queued. A message whose validity ended while it waited gets no place: it is answered expired.
 */
export const BULK_EVERY = 10;

export const CLASS_ORDER: readonly TrafficClass[] = ['otp', 'transactional', 'bulk'];

export type Turn = 'go' | 'expired';

/** How often a line looks for waiting messages whose validity ended. */
export const EXPIRY_CHECK_MS = 1000;

interface Waiting {
  validUntil: number | null;
  since: number;
  resolve(turn: Turn): void;
  reject(error: Error): void;
}

interface Family {
  waiting: Waiting[];
  /** Its virtual finishing time: the family with the lowest goes next. */
  pass: number;
  weight: number;
}

/** One class's families, in turn. */
class ClassQueue {
  private readonly families = new Map<number, Family>();
  /** The pass of the last family served: a family that starts waiting joins from here, not from 0. */
  private clock = 0;
  size = 0;

  push(family: number, weight: number, w: Waiting): void {
    let f = this.families.get(family);
    if (!f) this.families.set(family, (f = { waiting: [], pass: this.clock, weight }));
    f.weight = weight;
    f.waiting.push(w);
    this.size++;
  }

  /** The next waiting message in turn, taken off the line. */
  shift(): Waiting | undefined {
    let next: [number, Family] | undefined;
    for (const entry of this.families) if (!next || entry[1].pass < next[1].pass) next = entry;
    if (!next) return undefined;
    const [id, f] = next;
    const w = f.waiting.shift()!;
    this.size--;
    this.clock = f.pass;
    f.pass += 1 / Math.max(1, f.weight);
    if (f.waiting.length === 0) this.families.delete(id);
    return w;
  }

  oldest(): number | null {
    let oldest: number | null = null;
    for (const f of this.families.values())
      if (f.waiting.length > 0 && (oldest === null || f.waiting[0].since < oldest)) oldest = f.waiting[0].since;
    return oldest;
  }

  /** Takes off the line the messages whose validity ended by `now`. */
  expired(now: number): Waiting[] {
    const out: Waiting[] = [];
    for (const [id, f] of this.families) {
      const keep = f.waiting.filter((w) => w.validUntil === null || w.validUntil > now);
      if (keep.length === f.waiting.length) continue;
      out.push(...f.waiting.filter((w) => !keep.includes(w)));
      f.waiting = keep;
      if (keep.length === 0) this.families.delete(id);
    }
    this.size -= out.length;
    return out;
  }

  drain(): Waiting[] {
    const all = [...this.families.values()].flatMap((f) => f.waiting);
    this.families.clear();
    this.size = 0;
    return all;
  }
}

/** Why a line refused a message without writing it (the connector closed, the process stops). */
export class LineClosed extends Error {}

/** Messages waiting and the time the oldest of them started waiting, per class. */
export type LineWaiting = Record<TrafficClass, { waiting: number; oldest_at: number | null }>;

export class TrafficLine {
  private readonly classes = new Map<TrafficClass, ClassQueue>(CLASS_ORDER.map((c) => [c, new ClassQueue()]));
  private free: number;
  /** Places given to other classes since the last one given to `bulk` while it waited. */
  private sinceBulk = 0;
  private closed: LineClosed | null = null;

  /** Looks for messages whose validity ended while they wait, every EXPIRY_CHECK_MS while some have one. */
  private expiryTimer: NodeJS.Timeout | null = null;
  private withValidity = 0;

  constructor(places: number) {
    this.free = Math.max(1, places);
  }

  private watchExpiry(): void {
    this.withValidity++;
    this.expiryTimer ??= setInterval(() => {
      for (const q of this.classes.values()) for (const w of q.expired(Date.now())) w.resolve('expired');
      if (this.withValidity === 0 && this.expiryTimer) {
        clearInterval(this.expiryTimer);
        this.expiryTimer = null;
      }
    }, EXPIRY_CHECK_MS);
    this.expiryTimer.unref();
  }

  /**
   * Runs `task` once the message has a place (held until the task settles); answers `expired` without running it
   * when the message's validity ended while it waited. Rejects when the line closes first.
   */
  async run<T>(m: Pick<OutboundMessage, 'traffic' | 'validUntil'>, task: () => Promise<T>): Promise<T | 'expired'> {
    if (this.closed) throw this.closed;
    const validUntil = m.validUntil ?? null;
    if (validUntil !== null) this.watchExpiry();
    const turn = await new Promise<Turn>((resolve, reject) => {
      const t = m.traffic;
      this.classes.get(t?.class ?? 'bulk')!.push(t?.family ?? -1, t?.weight ?? 1, {
        validUntil,
        since: Date.now(),
        resolve,
        reject,
      });
      this.grant();
    }).finally(() => {
      if (validUntil !== null) this.withValidity--;
    });
    if (turn === 'expired') return 'expired';
    try {
      return await task();
    } finally {
      this.free++;
      this.grant();
    }
  }

  /** Gives the free places to the messages next in turn. */
  private grant(): void {
    while (this.free > 0) {
      const next = this.next();
      if (!next) return;
      if (next.validUntil !== null && next.validUntil <= Date.now()) {
        next.resolve('expired');
        continue;
      }
      this.free--;
      next.resolve('go');
    }
  }

  private next(): Waiting | undefined {
    const bulk = this.classes.get('bulk')!;
    if (bulk.size > 0 && this.sinceBulk >= BULK_EVERY - 1) {
      this.sinceBulk = 0;
      return bulk.shift();
    }
    for (const c of CLASS_ORDER) {
      const queue = this.classes.get(c)!;
      if (queue.size === 0) continue;
      if (c === 'bulk') this.sinceBulk = 0;
      else if (bulk.size > 0) this.sinceBulk++;
      return queue.shift();
    }
    return undefined;
  }

  waiting(): LineWaiting {
    const out = {} as LineWaiting;
    for (const [c, q] of this.classes) out[c] = { waiting: q.size, oldest_at: q.oldest() };
    return out;
  }

  /** Refuses what waits and what comes after: the connector is closing. */
  close(reason: LineClosed): void {
    if (this.closed) return;
    this.closed = reason;
    for (const q of this.classes.values()) for (const w of q.drain()) w.reject(reason);
    if (this.expiryTimer) clearInterval(this.expiryTimer);
    this.expiryTimer = null;
  }
}
