import type { Feature } from '../feature.js';

export const lists: Feature = { name: 'lists' };
