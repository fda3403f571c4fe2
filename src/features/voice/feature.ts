import type { Feature } from '../../feature.js';
import { voiceRoutes } from './routes.js';

export const voice: Feature = { name: 'voice', routes: voiceRoutes };
