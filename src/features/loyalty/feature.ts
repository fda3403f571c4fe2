import type { Feature } from '../../feature.js';
import { loyaltyRoutes } from './routes.js';

export const loyalty: Feature = { name: 'loyalty', routes: loyaltyRoutes };
