import type { Feature } from '../../feature.js';
import { paymentsRoutes, paymentsPublicRoutes } from './routes.js';

export const payments: Feature = { name: 'payments', routes: paymentsRoutes, publicRoutes: paymentsPublicRoutes };
