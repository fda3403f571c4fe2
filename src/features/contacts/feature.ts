import type { Feature } from '../../feature.js';
import { contactsRoutes } from './routes.js';

export const contacts: Feature = { name: 'contacts', routes: contactsRoutes };
