import type { CarrierIdBook } from '../early-receipts.js';
import { findProviderIds } from './store.js';
import { applyProviderStatuses } from './webhooks.js';

/**
 * HTTP providers' message ids (provider_message_ids): matched exactly, as
 * the provider gave them (wamid.… and CA… ids are case-sensitive). Statuses
 * that arrive before the id is recorded wait like SMPP's early receipts.
 */
export const providerIds: CarrierIdBook = {
  normalise: (id) => id,
  forms: (id) => [id],
  async lookup(ctx, carrier, carrierIds) {
    const byId = await findProviderIds(ctx, carrier, [...new Set(carrierIds)]);
    return (carrierId) => byId.get(carrierId);
  },
  apply: applyProviderStatuses,
};
