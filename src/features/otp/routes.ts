import type { Feature } from '../feature.js';

export const otp: Feature = { name: 'otp' };
