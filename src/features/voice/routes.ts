import type { Feature } from '../feature.js';

export const voice: Feature = { name: 'voice' };
