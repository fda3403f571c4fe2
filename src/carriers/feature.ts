import type { Feature } from '../feature.js';
import { whatsappWebhookRoutes } from './whatsapp-cloud/webhook.js';
import { twimlWebhookRoutes } from './twiml-voice/webhook.js';
import { pruneRejections } from './providers/store.js';

/** Carrier connectors and routes: the operator's CLI, and binding them in a running service. */
export const carriers: Feature = {
  name: 'carriers',
  // Provider callbacks: public, each checks the provider's own signature.
  publicRoutes: (app, ctx) => {
    whatsappWebhookRoutes(app, ctx.carriers.manager);
    twimlWebhookRoutes(app, ctx.carriers.manager);
  },
  // Called for a running service only (not for CLI commands): connectors bind and follow configuration changes.
  jobs: (_worker, ctx) => ctx.carriers.start(),
  // Refusals of provider callbacks, older than REJECTIONS_KEEP_DAYS (unmatched replies are messaging's).
  prune: async (ctx, now) => ({ rejections: await pruneRejections(ctx, now) }),
};
