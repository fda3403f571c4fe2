import type { Feature } from '../feature.js';

export const loyalty: Feature = { name: 'loyalty' };
