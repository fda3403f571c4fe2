/**
 * What the rest of the service uses of webhooks: recording events inside the
 * transaction of their cause. Delivery, endpoints, routes and the CLI stay
 * inside this folder.
 */
export { DELIVER_JOB, recordEvents, type NewEvent } from './record.js';
export { recordLowBalance } from './low-balance.js';
