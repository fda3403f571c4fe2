import type { AppContext } from '../context.js';
import type { PaymentProvider } from './provider.js';

/** Puts a real provider in place of the simulator for this process. */
export function usePaymentProvider(ctx: Pick<AppContext, 'paymentProvider'>, provider: PaymentProvider): void {
  ctx.paymentProvider = provider;
}

/** The payment provider of this process (src/app/boot.ts builds it: the simulator unless one is configured). */
export function paymentProvider(ctx: Pick<AppContext, 'paymentProvider'>): PaymentProvider {
  return ctx.paymentProvider;
}

declare module '../context.js' {
  interface AppContext {
    /** The simulator unless a real provider is configured (`mensajero payment-provider set-stripe`). */
    paymentProvider: PaymentProvider;
  }
}
