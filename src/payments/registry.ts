import type { AppContext } from '../context.js';
import type { PaymentProvider } from './provider.js';
import { SimulatedPaymentProvider } from './simulator/provider.js';

const providers = new WeakMap<AppContext, PaymentProvider>();

/** Puts a real provider in place of the simulator for this process. */
export function usePaymentProvider(ctx: AppContext, provider: PaymentProvider): void {
  providers.set(ctx, provider);
}

/** The payment provider of this process. The simulator is the default; real providers plug in here. */
export function paymentProvider(ctx: AppContext): PaymentProvider {
  let provider = providers.get(ctx);
  if (!provider) {
    provider = new SimulatedPaymentProvider(ctx.db.kysely);
    providers.set(ctx, provider);
  }
  return provider;
}
