import type { Feature } from '../feature.js';
import { credits } from '../features/credits/feature.js';
import { authLogin } from '../features/token-login/feature.js';
import { messaging } from '../messaging/feature.js';
import { simulator } from '../features/simulator/feature.js';
import { lists } from '../features/lists/feature.js';
import { contacts } from '../features/contacts/feature.js';
import { sms } from '../features/sms/feature.js';
import { chatapp } from '../features/chatapp/feature.js';
import { voice } from '../features/voice/feature.js';
import { reports } from '../features/reports/feature.js';
import { campaigns } from '../features/campaigns/feature.js';
import { otp } from '../features/otp/feature.js';
import { legacyOtp } from '../features/legacy-otp/feature.js';
import { webhooks } from '../webhooks/feature.js';
import { subaccounts } from '../features/subaccounts/feature.js';
import { payments } from '../features/payments/feature.js';
import { staff } from '../features/staff/feature.js';
import { wallet } from '../features/wallet/feature.js';
import { loyalty } from '../features/loyalty/feature.js';
import { optouts } from '../features/optouts/feature.js';
import { carriers } from '../carriers/feature.js';
import { panel } from '../panel/feature.js';
import { housekeeping } from './housekeeping.js';
import { alerts } from '../alert-checks/feature.js';
import { operatorApi } from '../operator-api/feature.js';

/** Every feature, registered in this order; housekeeping runs the `prune` of each. */
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
  housekeeping(() => features),
  alerts,
];
