import type { Feature } from '../../feature.js';
import { smsPublicRoutes, smsRoutes } from './routes.js';

export const sms: Feature = { name: 'sms', routes: smsRoutes, publicRoutes: smsPublicRoutes };
