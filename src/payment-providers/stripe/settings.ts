import type { BaseContext } from '../../context.js';
import { decrypt, encrypt } from '../../lib/secrets.js';

export const STRIPE = 'stripe';
export const STRIPE_API_BASE = 'https://api.stripe.com';

export interface StripeSettings {
  apiBase: string;
  secretKey: string;
  webhookSecret: string;
}

/** Stores (or replaces) the Stripe settings; both secrets are sealed with the API-key encryption key. */
export async function saveStripeSettings(ctx: BaseContext, s: StripeSettings): Promise<void> {
  const row = {
    api_base: s.apiBase,
    secret_key_enc: encrypt(ctx.secrets.keyEncryption, s.secretKey),
    webhook_secret_enc: encrypt(ctx.secrets.keyEncryption, s.webhookSecret),
    updated_at: Date.now(),
  };
  await ctx.db.kysely
    .insertInto('payment_provider_settings')
    .values({ provider: STRIPE, ...row })
    .onConflict((oc) => oc.column('provider').doUpdateSet(row))
    .execute();
}

export async function loadStripeSettings(ctx: BaseContext): Promise<StripeSettings | undefined> {
  const row = await ctx.db.kysely
    .selectFrom('payment_provider_settings')
    .selectAll()
    .where('provider', '=', STRIPE)
    .executeTakeFirst();
  if (!row) return undefined;
  return {
    apiBase: row.api_base,
    secretKey: decrypt(ctx.secrets.keyEncryption, row.secret_key_enc),
    webhookSecret: decrypt(ctx.secrets.keyEncryption, row.webhook_secret_enc),
  };
}

export async function removeStripeSettings(ctx: BaseContext): Promise<boolean> {
  const r = await ctx.db.kysely
    .deleteFrom('payment_provider_settings')
    .where('provider', '=', STRIPE)
    .executeTakeFirst();
  return Number(r.numDeletedRows) > 0;
}
