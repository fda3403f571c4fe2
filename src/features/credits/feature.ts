import type { Feature } from '../../feature.js';
import { creditsRoutes } from './routes.js';

export const credits: Feature = { name: 'credits', routes: creditsRoutes };
