import type { Feature } from '../../feature.js';
import { otpRoutes } from './routes.js';

export const otp: Feature = { name: 'otp', routes: otpRoutes };
