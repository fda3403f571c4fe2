import type { Feature } from '../feature.js';

export const sms: Feature = { name: 'sms' };
