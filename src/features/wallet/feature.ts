import type { Feature } from '../../feature.js';
import { walletRoutes } from './routes.js';

export const wallet: Feature = { name: 'wallet', routes: walletRoutes };
