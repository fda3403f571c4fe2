import type { Feature } from '../feature.js';

export const webhooks: Feature = { name: 'webhooks' };
