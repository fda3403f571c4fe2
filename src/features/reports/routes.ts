import type { Feature } from '../feature.js';

export const reports: Feature = { name: 'reports' };
