import type { Feature } from './feature.js';
import { credits } from './credits/routes.js';
import { authLogin } from './auth/routes.js';
import { messaging } from '../messaging/feature.js';
import { simulator } from './simulator/routes.js';
import { lists } from './lists/routes.js';
import { contacts } from './contacts/routes.js';
import { sms } from './sms/routes.js';
import { chatapp } from './chatapp/routes.js';
import { voice } from './voice/routes.js';
import { reports } from './reports/routes.js';
import { campaigns } from './campaigns/routes.js';
import { otp } from './otp/routes.js';
import { legacyOtp } from './legacy-otp/routes.js';
import { webhooks } from '../webhooks/routes.js';
import { subaccounts } from './subaccounts/routes.js';
import { payments } from './payments/routes.js';
import { staff } from './staff/routes.js';
import { wallet } from './wallet/routes.js';
import { loyalty } from './loyalty/routes.js';
import { optouts } from './optouts/routes.js';
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
