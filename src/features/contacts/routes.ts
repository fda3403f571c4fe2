import type { Feature } from '../feature.js';

export const contacts: Feature = { name: 'contacts' };
