import type { FastifyInstance } from 'fastify';
import type { AppContext } from './context.js';
import type { Worker } from './jobs/worker.js';

/** One resource of the spec: its API routes (behind the apikey hook), public routes and jobs. Each module declares its
 * Feature in its feature.ts; src/app/features.ts lists them. */
export interface Feature {
  name: string;
  routes?: (api: FastifyInstance, ctx: AppContext) => void | Promise<void>;
  publicRoutes?: (app: FastifyInstance, ctx: AppContext) => void | Promise<void>;
  jobs?: (worker: Worker, ctx: AppContext) => void;
}
