import { randomUUID } from 'node:crypto';
import { dispatchMessages, type DispatchContext } from './dispatch.js';
import { retryHold } from './sweep.js';
import type { DispatchOutcome, InlineDispatch as Inline, SharedDispatch as Shared } from './ports.js';
import type { InlineClaim } from './types.js';

/** Messages handed over per round at most (dispatchMessages claims them in carrier-sized batches). */
const ROUND = 1_000;

/**
 * Items queued by concurrent callers, handed over in rounds of at most ROUND messages: one turn of the event loop lets
 * the callers of that turn join a round. A round does not wait for the one before it: a round waits for its
 * messages' turns in the carriers' lines (carriers/traffic-line.ts), which order every round's messages by class and
 * family, so an OTP code of the next turn is never held behind a round of campaign messages.
 */
class RoundQueue<T extends { messageIds: number[] }> {
  private queue: T[] = [];
  private scheduled = false;

  constructor(private readonly handle: (round: T[]) => Promise<void>) {}

  /** Queues an item; returns the rounds it started (done when they are), or null when a turn already takes it. */
  push(item: T): Promise<void> | null {
    this.queue.push(item);
    if (this.scheduled) return null;
    this.scheduled = true;
    return new Promise<void>((resolve) => setImmediate(resolve)).then(() => this.startRounds());
  }

  private startRounds(): Promise<void> {
    this.scheduled = false;
    const rounds: Array<Promise<void>> = [];
    while (this.queue.length > 0) {
      let n = 0;
      let size = 0;
      while (n < this.queue.length && (n === 0 || size + this.queue[n].messageIds.length <= ROUND))
        size += this.queue[n++].messageIds.length;
      rounds.push(this.handle(this.queue.splice(0, n)));
    }
    return Promise.all(rounds).then(() => undefined);
  }
}

/**
 * Inline dispatch: committed messages of small immediate sends are handed to
 * their carrier by this process right after the commit, in shared rounds,
 * instead of waiting for a dispatch job to be claimed. They have no dispatch
 * job: the unsent sweep (sweep.ts) is their safety net, finding them once
 * their claim runs out after a crash, or once the back-off a transient
 * carrier failure holds them for has passed. The claim rules of
 * dispatchMessages keep it at most once.
 * Messages are inserted already claimed by it (claim(): one token per
 * process, a lease of JOB_LEASE_MS from the insert), so a round writes no
 * claim while that lease is young enough (dispatchMessages).
 * One per process, built by src/app/boot.ts (ctx.inlineDispatch).
 */
export class InlineDispatch implements Inline {
  private readonly rounds: RoundQueue<{ campaignId: number; messageIds: number[]; claimed?: InlineClaim }>;
  private readonly token = randomUUID();

  constructor(private readonly ctx: DispatchContext) {
    this.rounds = new RoundQueue(async (round) => {
      try {
        await this.dispatchRound(round);
      } catch (err) {
        // The messages keep their claim: the unsent sweep sends them once it runs out.
        this.ctx.log.warn(
          { err, campaigns: round.length },
          'inline hand-off failed; the unsent sweep will send these messages',
        );
      }
    });
  }

  claim(): InlineClaim {
    return { token: this.token, until: Date.now() + this.ctx.config.JOB_LEASE_MS };
  }

  add(campaignId: number, messageIds: number[], claimed?: InlineClaim): void {
    const drained = this.rounds.push({ campaignId, messageIds, claimed });
    if (drained) this.ctx.worker.track(drained);
  }

  private async dispatchRound(
    round: Array<{ campaignId: number; messageIds: number[]; claimed?: InlineClaim }>,
  ): Promise<void> {
    // The round's lease ends with its oldest claim; one not taken at insert is claimed as usual.
    const until = Math.min(...round.map((c) => c.claimed?.until ?? -Infinity));
    const outcomes = await dispatchMessages(
      this.ctx,
      round.flatMap((c) => c.messageIds),
      undefined,
      { token: this.token, until },
      retryHold(this.ctx.config.DISPATCH_RETRY_MS, 1),
    );
    if (outcomes.length > 0) this.ctx.worker.nudge('carrier', 'webhooks');
  }
}

interface Waiting {
  messageIds: number[];
  claimed?: InlineClaim;
  resolve(outcomes: DispatchOutcome[]): void;
  reject(error: unknown): void;
}

/**
 * Shared inline dispatch for senders that must know at once what the carrier
 * answered (OTP): the messages of concurrent callers are handed over in one
 * dispatchMessages round (one claim, one carrier batch, one recording
 * transaction) instead of one round each; the callers of the next turn form
 * the next round, which starts at once. Messages inserted with claim() are
 * submitted without a claim update while that lease is young enough, as the
 * inline dispatch's. One per process, built by src/app/boot.ts (ctx.sharedDispatch).
 */
export class SharedDispatch implements Shared {
  private readonly rounds = new RoundQueue<Waiting>((round) => this.round(round));
  private readonly token = randomUUID();

  constructor(private readonly ctx: DispatchContext) {}

  claim(): InlineClaim {
    return { token: this.token, until: Date.now() + this.ctx.config.JOB_LEASE_MS };
  }

  /** The outcome of each of these messages this round handed over (none for a message claimed elsewhere). */
  dispatch(messageIds: number[], claimed?: InlineClaim): Promise<DispatchOutcome[]> {
    return new Promise((resolve, reject) => void this.rounds.push({ messageIds, claimed, resolve, reject }));
  }

  private async round(round: Waiting[]): Promise<void> {
    // The round's lease ends with its oldest claim; one not taken at insert is claimed as usual.
    const until = Math.min(...round.map((w) => w.claimed?.until ?? -Infinity));
    try {
      const outcomes = new Map(
        (
          await dispatchMessages(
            this.ctx,
            round.flatMap((w) => w.messageIds),
            undefined,
            { token: this.token, until },
          )
        ).map((o) => [o.messageId, o]),
      );
      for (const w of round) w.resolve(w.messageIds.flatMap((id) => outcomes.get(id) ?? []));
    } catch (error) {
      for (const w of round) w.reject(error);
    }
  }
}
