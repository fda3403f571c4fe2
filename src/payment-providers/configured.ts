import type { AppContext, BaseContext } from '../context.js';
import type { PaymentProvider } from './provider.js';
import { SimulatedPaymentProvider } from './simulator/provider.js';
import { loadStripeSettings } from './stripe/settings.js';
import { StripeCheckoutProvider } from './stripe/provider.js';

/** The operator's provider (`mensajero payment-provider set-stripe`) if one is configured, else the simulator. */
export async function configuredPaymentProvider(ctx: BaseContext): Promise<PaymentProvider> {
  const stripe = await loadStripeSettings(ctx);
  return stripe ? new StripeCheckoutProvider(stripe, ctx.db.kysely) : new SimulatedPaymentProvider(ctx.db.kysely);
}

/** Puts the operator's provider in place of the simulator, if one is configured now (after settings changed). */
export async function useConfiguredPaymentProvider(
  ctx: Pick<AppContext, 'config' | 'db' | 'secrets' | 'log' | 'paymentProvider'>,
): Promise<void> {
  const stripe = await loadStripeSettings(ctx);
  if (stripe) ctx.paymentProvider = new StripeCheckoutProvider(stripe, ctx.db.kysely);
}
