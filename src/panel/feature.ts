import type { Feature } from '../feature.js';
import { panelRoutes } from './routes.js';

/** The account panel at /panel/: account holders' self-service and the operator view, server-rendered. */
export const panel: Feature = {
  name: 'panel',
  publicRoutes: (app, ctx) => panelRoutes(app, ctx),
};
