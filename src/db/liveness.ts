import type { Logger } from 'pino';
import type { Db } from './engine.js';

/** A readiness check answers within this, whatever the database does. */
export const READY_TIMEOUT_MS = 900;

/**
 * Whether this process reaches its database, checked every `intervalMs` on a
 * connection of its own: a warn line when it loses the database and when it
 * regains it, `reachable` for /metrics, and `ready()` for /readyz.
 */
export class DatabaseLiveness {
  reachable = true;
  /** When the database last answered (epoch ms). */
  lastAnswerAt = Date.now();
  private timer: NodeJS.Timeout | null = null;
  private probing: Promise<boolean> | null = null;

  constructor(
    private readonly db: Pick<Db, 'ping' | 'describe'>,
    private readonly log: Pick<Logger, 'warn'>,
    private readonly intervalMs = 1000,
  ) {}

  start(): void {
    this.timer = setInterval(() => void this.probe(), this.intervalMs);
    this.timer.unref();
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }

  /** Asks the database now (one question at a time: a caller during a probe shares its answer). */
  probe(): Promise<boolean> {
    this.probing ??= this.db
      .ping(READY_TIMEOUT_MS)
      .then(
        () => this.settle(true, null),
        (err: unknown) => this.settle(false, err),
      )
      .finally(() => (this.probing = null));
    return this.probing;
  }

  private settle(answered: boolean, err: unknown): boolean {
    if (answered) this.lastAnswerAt = Date.now();
    if (answered !== this.reachable) {
      const since = Date.now() - this.lastAnswerAt;
      if (answered) this.log.warn({ database: this.db.describe }, 'the database answers again');
      else
        this.log.warn(
          { database: this.db.describe, err: (err as Error)?.message, silent_ms: since },
          'the database does not answer: this process is not ready',
        );
    }
    this.reachable = answered;
    return answered;
  }
}
