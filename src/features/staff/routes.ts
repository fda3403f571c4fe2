import type { Feature } from '../feature.js';

export const staff: Feature = { name: 'staff' };
