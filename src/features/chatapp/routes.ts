import type { Feature } from '../feature.js';

export const chatapp: Feature = { name: 'chatapp' };
