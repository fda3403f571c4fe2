import type { Feature } from '../../feature.js';
import { paymentsRoutes, paymentsPublicRoutes } from './routes.js';
import { forgetPaymentRequests } from './store.js';

export const payments: Feature = {
  name: 'payments',
  routes: paymentsRoutes,
  publicRoutes: paymentsPublicRoutes,
  forgetMessages: forgetPaymentRequests,
};
