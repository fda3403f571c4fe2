import type { Config } from '../../config.js';
import type { Db, Executor } from '../../db/engine.js';
import { recordAudit, type AuditInput } from '../../audit/service.js';
import { closeEpisode, isoTime, openEpisode } from '../../alerts/episodes.js';
import { formatLocal } from '../../lib/time.js';
import { OtpError } from './errors.js';
import { PATHS } from './machine.js';
import {
  blockInForce,
  blocksInForce,
  countPrefix,
  endBlock,
  familyBlocks,
  insertBlock,
  prunePumping,
  windowCounts,
  type NewBlock,
} from './pumping-store.js';

/**
 * The pumping guard: per family (a top-level account with its sub-accounts) and destination prefix, new codes and
 * verifications are counted in buckets of a twelfth of OTP_PUMPING_WINDOW_SECONDS; when the window holds at least
 * OTP_PUMPING_MIN_CODES new codes and less than OTP_PUMPING_MIN_VERIFIED_PERCENT of them verified, the prefix is
 * blocked for the family for OTP_PUMPING_BLOCK_SECONDS, and for the deployment once OTP_PUMPING_DEPLOYMENT_FAMILIES
 * families have it blocked. Sandbox requests and code_show codes are never counted.
 */

type PumpingConfig = Config;

const BUCKETS = 12;
const bucketMs = (config: PumpingConfig) => (config.OTP_PUMPING_WINDOW_SECONDS * 1000) / BUCKETS;
const bucketOf = (config: PumpingConfig, now: number) => Math.floor(now / bucketMs(config));

/** The prefix a number is counted under: its country code and the first OTP_PUMPING_PREFIX_DIGITS national digits. */
export const pumpingPrefix = (config: PumpingConfig, countryCode: string, phoneNumber: string): string =>
  countryCode + phoneNumber.slice(0, config.OTP_PUMPING_PREFIX_DIGITS);

/** Refuses a code to a prefix blocked for the family or the deployment: 429 otp_prefix_blocked, nothing sent or charged. */
export async function checkPrefixOpen(
  db: Executor,
  root: number,
  prefix: string,
  state: string,
  now: number,
): Promise<void> {
  const block = await blockInForce(db, prefix, root, now);
  if (!block) return;
  const wait = Math.max(1, Math.ceil((block.until - now) / 1000));
  throw new OtpError(
    429,
    'otp_prefix_blocked',
    {
      state,
      hint: `Codes to numbers starting ${prefix} are paused until ${formatLocal(block.until)} (Mexico City): too few of the codes recently sent there were verified, the mark of SMS pumping. Nothing was sent or charged; a code already sent can still be verified.`,
      next: [PATHS.verify, PATHS.status],
      resend_available_in: wait,
    },
    undefined,
    { 'Retry-After': String(wait) },
  );
}

/** Counts a new code for the family and prefix, inside its send's transaction, and blocks the prefix when the window says pumping. */
export async function countNewCode(
  db: Executor,
  config: PumpingConfig,
  k: { accountId: number; root: number; prefix: string },
  now: number,
): Promise<void> {
  const bucket = bucketOf(config, now);
  const current = await countPrefix(db, { accountId: k.accountId, prefix: k.prefix, bucket }, 'created');
  // Only a code in a bucket below the minimum share reads the window: honest traffic, which verifies, rarely does.
  if (converts(config, current)) return;
  const window = await windowCounts(db, k.root, k.prefix, bucket - BUCKETS + 1);
  if (window.created < config.OTP_PUMPING_MIN_CODES || converts(config, window)) return;
  await block(db, config, { root: k.root, prefix: k.prefix, since: now, until: now + blockMs(config), ...window });
}

/** A verified code for the family and prefix (one upsert). */
export async function countVerified(
  db: Executor,
  config: PumpingConfig,
  k: { accountId: number; prefix: string },
  now: number,
): Promise<void> {
  await countPrefix(db, { ...k, bucket: bucketOf(config, now) }, 'verified');
}

const converts = (config: PumpingConfig, c: { created: number; verified: number }) =>
  c.verified * 100 >= config.OTP_PUMPING_MIN_VERIFIED_PERCENT * c.created;

const blockMs = (config: PumpingConfig) => config.OTP_PUMPING_BLOCK_SECONDS * 1000;

async function block(db: Executor, config: PumpingConfig, b: NewBlock): Promise<void> {
  const id = await insertBlock(db, b);
  await alert(db, config, id, b);
  const families = await familyBlocks(db, b.prefix, b.since);
  if (families.length < config.OTP_PUMPING_DEPLOYMENT_FAMILIES) return;
  if ((await blockInForce(db, b.prefix, -1, b.since)) !== undefined) return;
  const sum = (f: 'created' | 'verified') => families.reduce((n, x) => n + x[f], 0);
  const deployment = { ...b, root: null, created: sum('created'), verified: sum('verified') };
  await alert(db, config, await insertBlock(db, deployment), deployment);
}

/** The operator's otp_pumping alert: one per block (its episode opens and closes at once). */
async function alert(db: Executor, config: PumpingConfig, id: number, b: NewBlock): Promise<void> {
  const account =
    b.root === null
      ? ''
      : ((await db.selectFrom('accounts').select('email').where('id', '=', b.root).executeTakeFirst())?.email ?? '');
  const subject = `block:${id}`;
  await openEpisode(db, config, {
    type: 'otp_pumping',
    subject,
    since: b.since,
    body: {
      type: 'otp_pumping',
      scope: b.root === null ? 'deployment' : 'account',
      account,
      prefix: b.prefix,
      created: b.created,
      verified: b.verified,
      until: isoTime(b.until),
      since: isoTime(b.since),
    },
  });
  await closeEpisode(db, config, 'otp_pumping', subject);
}

/** A block as `otp blocks list` and the operator API show it. */
export interface BlockView {
  id: number;
  scope: 'account' | 'deployment';
  email: string | null;
  prefix: string;
  until: string;
  created: number;
  verified: number;
}

export async function listBlocks(db: Executor, now = Date.now()): Promise<BlockView[]> {
  return (await blocksInForce(db, now)).map((b) => ({
    id: b.id,
    scope: b.root_account_id === null ? 'deployment' : 'account',
    email: b.email,
    prefix: b.prefix,
    until: isoTime(b.until),
    created: b.created,
    verified: b.verified,
  }));
}

/**
 * Ends a block in force (the family's counts of the prefix start again); false when there is none with this id. With
 * `by` (the operator API), its audit entry `otp.blocks.remove` is written in the same transaction.
 */
export async function removeBlock(
  db: Db,
  id: number,
  by?: Pick<AuditInput, 'actor' | 'address'>,
  now = Date.now(),
): Promise<boolean> {
  return db.kysely.transaction().execute(async (trx) => {
    const ended = await endBlock(trx, id, now);
    if (ended && by) await recordAudit(trx, { ...by, action: 'otp.blocks.remove', target: String(id), detail: { id } });
    return ended;
  });
}

/** Buckets past the window and blocks ended a day ago are of no further use (housekeeping). */
export async function prunePumpingGuard(db: Executor, config: PumpingConfig, now: number): Promise<number> {
  return prunePumping(db, bucketOf(config, now) - BUCKETS, now - 24 * 3_600_000);
}
