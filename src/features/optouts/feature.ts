import type { Feature } from '../../feature.js';
import { optoutsRoutes } from './routes.js';

/** GET/POST/DELETE /optouts: the list of numbers the account's family does not send to (docs/operators/opt-outs.md). */
export const optouts: Feature = { name: 'optouts', routes: optoutsRoutes };
