import type { Feature } from './feature.js';
import { credits } from './credits/routes.js';
import { messaging } from '../messaging/feature.js';
import { simulator } from './simulator/routes.js';

/** Every feature, registered in this order. */
export const features: Feature[] = [credits, messaging, simulator];
