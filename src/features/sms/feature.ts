import type { Feature } from '../../feature.js';
import { smsPublicRoutes, smsRoutes } from './routes.js';
import { forgetShortLinks } from './store.js';

export const sms: Feature = {
  name: 'sms',
  routes: smsRoutes,
  publicRoutes: smsPublicRoutes,
  forgetMessages: forgetShortLinks,
};
