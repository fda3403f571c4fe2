import type { Feature } from '../../feature.js';
import { listsRoutes } from './routes.js';

export const lists: Feature = { name: 'lists', routes: listsRoutes };
