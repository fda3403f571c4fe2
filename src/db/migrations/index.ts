import type { Migration } from 'kysely';
import * as m0001 from './0001_foundation.js';
import * as m0003 from './0003_messaging.js';
import * as m0004 from './0004_events.js';
import * as m0005 from './0005_contacts.js';
import * as m0006 from './0006_read_tracking.js';
import * as m0007 from './0007_sms.js';
import * as m0008 from './0008_chatapp.js';
import * as m0009 from './0009_otp.js';
import * as m0010 from './0010_webhooks.js';
import * as m0011 from './0011_payments.js';
import * as m0012 from './0012_staff_wallet_loyalty.js';
import * as m0013 from './0013_dispatch_claims.js';
import * as m0014a from './0014_a_handoff.js';
import * as m0014b from './0014_b_idempotency.js';
import * as m0016 from './0016_security.js';
import * as m0017 from './0017_carriers.js';
import * as m0018 from './0018_panel.js';
import * as m0019 from './0019_provider_connectors.js';
import * as m0020 from './0020_stripe_checkout.js';
import * as m0021 from './0021_provider_receipts_instances.js';
import * as m0026 from './0026_report_order.js';
import * as m0027 from './0027_tenant_suspension.js';
import * as m0028 from './0028_otp_locks_per_day.js';
import * as m0029 from './0029_attempt_counters.js';
import * as m0030 from './0030_counted_rejections.js';
import * as m0031 from './0031_carrier_receipts.js';
import * as m0032 from './0032_optouts.js';
import * as m0033 from './0033_low_balance_and_alerts.js';
import * as m0034 from './0034_prices_costs.js';
import * as m0035 from './0035_route_strategies.js';
import * as m0036 from './0036_smpp_server.js';
import * as m0037 from './0037_message_trace.js';
import * as m0038 from './0038_smpp_validity_resubmits.js';
import * as m0039 from './0039_carrier_event_counts.js';
import * as m0040 from './0040_hot_status_updates.js';

/** Every migration, in order. Names sort; a feature adds its file here. */
export const migrations: Record<string, Migration> = {
  '0001_foundation': m0001,
  '0003_messaging': m0003,
  '0004_events': m0004,
  '0005_contacts': m0005,
  '0006_read_tracking': m0006,
  '0007_sms': m0007,
  '0008_chatapp': m0008,
  '0009_otp': m0009,
  '0010_webhooks': m0010,
  '0011_payments': m0011,
  '0012_staff_wallet_loyalty': m0012,
  '0013_dispatch_claims': m0013,
  '0014_a_handoff': m0014a,
  '0014_b_idempotency': m0014b,
  '0016_security': m0016,
  '0017_carriers': m0017,
  '0018_panel': m0018,
  '0019_provider_connectors': m0019,
  '0020_stripe_checkout': m0020,
  '0021_provider_receipts_instances': m0021,
  '0026_report_order': m0026,
  '0027_tenant_suspension': m0027,
  '0028_otp_locks_per_day': m0028,
  '0029_attempt_counters': m0029,
  '0030_counted_rejections': m0030,
  '0031_carrier_receipts': m0031,
  '0032_optouts': m0032,
  '0033_low_balance_and_alerts': m0033,
  '0034_prices_costs': m0034,
  '0035_route_strategies': m0035,
  '0036_smpp_server': m0036,
  '0037_message_trace': m0037,
  '0038_smpp_validity_resubmits': m0038,
  '0039_carrier_event_counts': m0039,
  '0040_hot_status_updates': m0040,
};
