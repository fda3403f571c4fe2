import type { FastifyInstance } from 'fastify';
import type { Transaction } from 'kysely';
import type { Database } from './db/schema.js';
import type { AppContext } from './context.js';
import type { Worker } from './jobs/worker.js';

/** One resource of the spec: its API routes (behind the apikey hook), public routes, jobs and rows to prune. Each module declares its
 * Feature in its feature.ts; src/app/features.ts lists them. */
export interface Feature {
  name: string;
  routes?: (api: FastifyInstance, ctx: AppContext) => void | Promise<void>;
  publicRoutes?: (app: FastifyInstance, ctx: AppContext) => void | Promise<void>;
  jobs?: (worker: Worker, ctx: AppContext) => void;
  /**
   * Deletes the module's rows that are of no use any more (older than what it keeps), `now` as the run's time: run by
   * housekeeping (src/app/housekeeping.ts) every 10 minutes in one process. Answers how many rows it deleted, by a
   * name for the log line (`{ attempts: 3 }`).
   */
  prune?: (ctx: AppContext, now: number) => Promise<Record<string, number>>;
  /**
   * Message retention (MESSAGES_KEEP_DAYS, src/messaging/retention.ts): deletes the module's rows of a batch of pruned
   * messages, in the batch's transaction, before the messages go. Answers how many rows it deleted.
   */
  forgetMessages?: (trx: Transaction<Database>, batch: PrunedMessages) => Promise<number>;
}

/** A batch of messages retention removes: their ids and references, and the campaigns left with no message. */
export interface PrunedMessages {
  ids: number[];
  references: string[];
  /** Campaigns created before the cutoff whose last messages are in this batch: removed with it. */
  campaignIds: number[];
}
