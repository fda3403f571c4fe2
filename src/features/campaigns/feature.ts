import type { Feature } from '../../feature.js';
import { campaignsRoutes } from './routes.js';

export const campaigns: Feature = { name: 'campaigns', routes: campaignsRoutes };
