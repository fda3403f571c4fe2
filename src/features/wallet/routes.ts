import type { Feature } from '../feature.js';

export const wallet: Feature = { name: 'wallet' };
