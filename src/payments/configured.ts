import type { AppContext } from '../context.js';
import { usePaymentProvider } from './registry.js';
import { loadStripeSettings } from './stripe/settings.js';
import { StripeCheckoutProvider } from './stripe/provider.js';

/** Puts the operator's provider (`mensajero payment-provider set-stripe`) in place of the simulator, if one is configured. */
export async function useConfiguredPaymentProvider(ctx: AppContext): Promise<void> {
  const stripe = await loadStripeSettings(ctx);
  if (stripe) usePaymentProvider(ctx, new StripeCheckoutProvider(stripe, ctx.db.kysely));
}
