import type { AppContext } from '../context.js';
import {
  checkCarriers,
  checkDemoted,
  checkDisabledWebhooks,
  checkLines,
  checkQueue,
  openEpisodeKeys,
  type Check,
} from './conditions.js';
import { markChecked, releaseEvaluatorLease, takeEvaluatorLease } from './lease.js';

/**
 * Checks the alert conditions every ALERT_CHECK_MS in the one process of
 * the deployment that holds the evaluator's lease (any process takes it over
 * once its holder stops renewing it). It runs on a timer of its own, not as a
 * job: a stalled job queue is one of the things it reports. It runs while the
 * process's worker runs; a check in progress holds the worker's stop.
 */
export class AlertEvaluator {
  private readonly holder: string;
  private readonly startedAt = Date.now();
  private timer: NodeJS.Timeout | null = null;
  private checking = false;
  private held = false;
  private ran = false;

  constructor(private readonly ctx: AppContext) {
    this.holder = `alerts-${ctx.worker.id}`;
  }

  start(): void {
    this.timer = setInterval(() => this.tick(), this.ctx.config.ALERT_CHECK_MS);
    this.timer.unref();
  }

  private get leaseMs(): number {
    return Math.max(3 * this.ctx.config.ALERT_CHECK_MS, 5_000);
  }

  private tick(): void {
    if (!this.ctx.worker.running) {
      // Stopped (the database closes next): the lease runs out and another process takes it over.
      if (this.ran) void this.stop(false);
      return;
    }
    this.ran = true;
    if (this.checking) return;
    this.checking = true;
    const run = this.check()
      .catch((err) => this.ctx.log.warn({ err }, 'checking the alert conditions failed'))
      .finally(() => (this.checking = false));
    this.ctx.worker.track(run);
  }

  /** One round: the lease, then each condition; the last check's time is recorded for the next. */
  async check(): Promise<void> {
    const { db, config } = this.ctx;
    const lease = await takeEvaluatorLease(db.kysely, this.holder, this.leaseMs);
    this.held = lease !== null;
    if (!lease) return;
    const c: Check = {
      db,
      config,
      now: Date.now(),
      checkedAt: lease.checkedAt,
      startedAt: this.startedAt,
      open: await openEpisodeKeys(db),
    };
    await checkCarriers(c);
    await checkDemoted(c);
    await checkQueue(c);
    await checkLines(c);
    await checkDisabledWebhooks(c);
    await markChecked(db.kysely, this.holder, c.now);
  }

  /** Stops checking; with `release`, hands the lease over at once when this process held it. */
  async stop(release = true): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    if (release && this.held) await releaseEvaluatorLease(this.ctx.db.kysely, this.holder).catch(() => undefined);
  }
}
