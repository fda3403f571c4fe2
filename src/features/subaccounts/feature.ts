import type { Feature } from '../../feature.js';
import { subaccountsRoutes } from './routes.js';

export const subaccounts: Feature = { name: 'subaccounts', routes: subaccountsRoutes };
