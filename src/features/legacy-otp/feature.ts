import type { Feature } from '../../feature.js';
import { legacyOtpRoutes } from './routes.js';

export const legacyOtp: Feature = { name: 'legacy-otp', routes: legacyOtpRoutes };
