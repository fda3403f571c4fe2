import type { Feature } from '../../feature.js';
import { reportsRoutes } from './routes.js';

export const reports: Feature = { name: 'reports', routes: reportsRoutes };
