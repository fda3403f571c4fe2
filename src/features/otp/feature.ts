import type { Feature } from '../../feature.js';
import { prunePumpingGuard } from './pumping.js';
import { otpRoutes } from './routes.js';

export const otp: Feature = {
  name: 'otp',
  routes: otpRoutes,
  prune: async (ctx, now) => ({ otp_prefix_counts: await prunePumpingGuard(ctx.db.kysely, ctx.config, now) }),
};
