import type { Kysely, Migration } from 'kysely';

/**
 * A migration whose module is loaded only when it runs: a process whose
 * database is up to date (every CLI command, every start) reads the names
 * below and loads none of the files.
 */
const lazy = (load: () => Promise<Migration>): Migration => ({
  up: async (db: Kysely<any>) => (await load()).up(db),
  down: async (db: Kysely<any>) => (await load()).down?.(db),
});

/** Every migration, in order. Names sort; a feature adds its file here. */
export const migrations: Record<string, Migration> = {
  '0001_foundation': lazy(() => import('./0001_foundation.js')),
  '0003_messaging': lazy(() => import('./0003_messaging.js')),
  '0004_events': lazy(() => import('./0004_events.js')),
  '0005_contacts': lazy(() => import('./0005_contacts.js')),
  '0006_read_tracking': lazy(() => import('./0006_read_tracking.js')),
  '0007_sms': lazy(() => import('./0007_sms.js')),
  '0008_chatapp': lazy(() => import('./0008_chatapp.js')),
  '0009_otp': lazy(() => import('./0009_otp.js')),
  '0010_webhooks': lazy(() => import('./0010_webhooks.js')),
  '0011_payments': lazy(() => import('./0011_payments.js')),
  '0012_staff_wallet_loyalty': lazy(() => import('./0012_staff_wallet_loyalty.js')),
  '0013_dispatch_claims': lazy(() => import('./0013_dispatch_claims.js')),
  '0014_a_handoff': lazy(() => import('./0014_a_handoff.js')),
  '0014_b_idempotency': lazy(() => import('./0014_b_idempotency.js')),
  '0016_security': lazy(() => import('./0016_security.js')),
  '0017_carriers': lazy(() => import('./0017_carriers.js')),
  '0018_panel': lazy(() => import('./0018_panel.js')),
  '0019_provider_connectors': lazy(() => import('./0019_provider_connectors.js')),
  '0020_stripe_checkout': lazy(() => import('./0020_stripe_checkout.js')),
  '0021_provider_receipts_instances': lazy(() => import('./0021_provider_receipts_instances.js')),
  '0026_report_order': lazy(() => import('./0026_report_order.js')),
  '0027_tenant_suspension': lazy(() => import('./0027_tenant_suspension.js')),
  '0028_otp_locks_per_day': lazy(() => import('./0028_otp_locks_per_day.js')),
  '0029_attempt_counters': lazy(() => import('./0029_attempt_counters.js')),
  '0030_counted_rejections': lazy(() => import('./0030_counted_rejections.js')),
  '0031_carrier_receipts': lazy(() => import('./0031_carrier_receipts.js')),
  '0032_optouts': lazy(() => import('./0032_optouts.js')),
  '0033_low_balance_and_alerts': lazy(() => import('./0033_low_balance_and_alerts.js')),
  '0034_prices_costs': lazy(() => import('./0034_prices_costs.js')),
  '0035_route_strategies': lazy(() => import('./0035_route_strategies.js')),
  '0036_smpp_server': lazy(() => import('./0036_smpp_server.js')),
  '0037_message_trace': lazy(() => import('./0037_message_trace.js')),
  '0038_smpp_validity_resubmits': lazy(() => import('./0038_smpp_validity_resubmits.js')),
  '0039_carrier_event_counts': lazy(() => import('./0039_carrier_event_counts.js')),
  '0040_hot_status_updates': lazy(() => import('./0040_hot_status_updates.js')),
  '0041_unsent_sweep': lazy(() => import('./0041_unsent_sweep.js')),
  '0042_provider_ids_created': lazy(() => import('./0042_provider_ids_created.js')),
  '0043_optouts_in_order': lazy(() => import('./0043_optouts_in_order.js')),
  '0044_operator_api_audit': lazy(() => import('./0044_operator_api_audit.js')),
  '0045_long_unicode_sms': lazy(() => import('./0045_long_unicode_sms.js')),
  '0046_two_way': lazy(() => import('./0046_two_way.js')),
  '0047_do_not_contact': lazy(() => import('./0047_do_not_contact.js')),
  '0048_customer_notices': lazy(() => import('./0048_customer_notices.js')),
  '0049_ledger_reset_links': lazy(() => import('./0049_ledger_reset_links.js')),
  '0050_traffic_classes': lazy(() => import('./0050_traffic_classes.js')),
  '0051_abuse_guards': lazy(() => import('./0051_abuse_guards.js')),
  '0052_abuse_controls': lazy(() => import('./0052_abuse_controls.js')),
  '0053_message_retention': lazy(() => import('./0053_message_retention.js')),
};
