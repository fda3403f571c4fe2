import type { Feature } from '../../feature.js';
import { simulatorRoutes } from './routes.js';

/**
 * POST /simulator/replies: makes a number reply to the latest message the
 * account sent it through the simulator (one a real carrier took, or not
 * handed over yet, does not count). With none, the reply goes through the
 * account's own MO routes (`to`: our number it is written to; its first word),
 * never another account's; else 404. A 10-digit number gets the country code
 * (default 52). Exists only while the simulators are on.
 */
export const simulator: Feature = { name: 'simulator', routes: simulatorRoutes };
