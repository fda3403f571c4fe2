import type { Feature } from '../../feature.js';
import { chatappRoutes } from './routes.js';

export const chatapp: Feature = { name: 'chatapp', routes: chatappRoutes };
