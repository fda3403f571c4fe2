import type { Feature } from '../feature.js';

export const subaccounts: Feature = { name: 'subaccounts' };
