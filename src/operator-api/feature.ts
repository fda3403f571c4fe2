import type { Feature } from '../feature.js';
import { operatorApiRoutes } from './routes.js';

/** The operator API at /operator/v1/: what the CLI does, over HTTP with bearer tokens (docs/operators/operator-api.md). */
export const operatorApi: Feature = {
  name: 'operator-api',
  publicRoutes: (app, ctx) => operatorApiRoutes(app, ctx),
};
