import type { Feature } from '../feature.js';

export const payments: Feature = { name: 'payments' };
