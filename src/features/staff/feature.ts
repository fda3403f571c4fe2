import type { Feature } from '../../feature.js';
import { staffRoutes } from './routes.js';

export const staff: Feature = { name: 'staff', routes: staffRoutes };
