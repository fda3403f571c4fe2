import type { Feature } from '../feature.js';
import { credits } from '../features/credits/routes.js';
import { authLogin } from '../features/auth/routes.js';
import { messaging } from '../messaging/feature.js';
import { simulator } from '../features/simulator/routes.js';
import { lists } from '../features/lists/routes.js';
import { contacts } from '../features/contacts/routes.js';
import { sms } from '../features/sms/routes.js';
import { chatapp } from '../features/chatapp/routes.js';
import { voice } from '../features/voice/routes.js';
import { reports } from '../features/reports/routes.js';
import { campaigns } from '../features/campaigns/routes.js';
import { otp } from '../features/otp/routes.js';
import { legacyOtp } from '../features/legacy-otp/routes.js';
import { webhooks } from '../webhooks/routes.js';
import { subaccounts } from '../features/subaccounts/routes.js';
import { payments } from '../features/payments/routes.js';
import { staff } from '../features/staff/routes.js';
import { wallet } from '../features/wallet/routes.js';
import { loyalty } from '../features/loyalty/routes.js';
import { optouts } from '../features/optouts/routes.js';
import { carriers } from '../carriers/feature.js';
import { panel } from '../panel/feature.js';
import { housekeeping } from '../jobs/housekeeping.js';
import { alerts } from '../alerts/feature.js';
import { operatorApi } from '../operator-api/feature.js';

/** Every feature, registered in this order. */
export const features: Feature[] = [
  credits,
  authLogin,
  messaging,
  simulator,
  lists,
  contacts,
  sms,
  chatapp,
  voice,
  reports,
  campaigns,
  otp,
  legacyOtp,
  webhooks,
  subaccounts,
  payments,
  staff,
  wallet,
  loyalty,
  optouts,
  carriers,
  panel,
  operatorApi,
  housekeeping,
  alerts,
];
