import type { WithDb } from '../context.js';
import { listEpisodes } from '../alerts/index.js';
import { carrierFigures, carrierTimeline, type FiguresBy } from '../carriers/analytics.js';
import { listPublicRoutes } from '../carriers/index.js';
import { queueStats } from '../jobs/queue.js';

// What the operator's pages read of the carriers, alerts and the job queue: those modules take the database handle,
// and pages hold only the context. No query here: each is the module's own function.

export const publicRoutes = (ctx: WithDb) => listPublicRoutes(ctx.db.kysely);

export const alertEpisodes = (ctx: WithDb, limit: number) => listEpisodes(ctx.db.kysely, limit);

export const jobQueue = (ctx: WithDb) => queueStats(ctx.db);

export const carrierFiguresSince = (ctx: WithDb, from: number, by: FiguresBy) =>
  carrierFigures(ctx.db.kysely, from, by);

export const carrierTimelineSince = (ctx: WithDb, from: number, step: number | 'day') =>
  carrierTimeline(ctx.db.kysely, from, step);
